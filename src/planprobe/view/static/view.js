// planprobe view: the pages' behaviour. Every string from a run is suite or model text: it
// reaches the page only through textContent / createTextNode and SVG attributes set to
// numbers, never as markup. Served as a file: the Content-Security-Policy runs nothing else.
(function () {
  "use strict";
  var SVGNS = "http://www.w3.org/2000/svg", POLL_MS = 500;
  var page = document.body.dataset.page;

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function svg(tag, attrs, text) {
    var e = document.createElementNS(SVGNS, tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function pct(x) { return x === null || x === undefined ? "–" : (100 * x).toFixed(1) + "%"; }
  function rateText(rate, ci) { return rate === null ? "–" : pct(rate) + " [" + pct(ci[0]) + "–" + pct(ci[1]) + "]"; }
  function getJSON(url) {
    return fetch(url, { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      if (!r.ok) throw new Error(url + ": " + r.status);
      return r.json();
    });
  }
  function q(name, value) { return name + "=" + encodeURIComponent(value); }

  // the hover tip: one element, text only
  var tip = document.getElementById("tip");
  function hover(node, text) {
    node.appendChild(svg("title", {}, text));
    node.addEventListener("mousemove", function (ev) {
      tip.textContent = text; tip.hidden = false;
      tip.style.left = (ev.clientX + 12) + "px"; tip.style.top = (ev.clientY + 12) + "px";
    });
    node.addEventListener("mouseleave", function () { tip.hidden = true; });
  }

  // ---- the run list: filter, sort, and follow runs still being written ----
  function runsPage() {
    var table = document.getElementById("runs"), body = table.tBodies[0];
    var filter = document.getElementById("run-filter"), family = document.getElementById("family-filter");
    var heads = {}, sortKey = null, sortDir = 1;
    function apply() {
      var text = filter.value.toLowerCase(), fam = family.value, shown = 0;
      Array.prototype.forEach.call(body.rows, function (tr) {
        var ok = tr.textContent.toLowerCase().indexOf(text) >= 0 &&
          (!fam || (tr.querySelector(".c-family") || {}).textContent === fam);
        tr.hidden = !ok; shown += ok;
      });
      document.getElementById("run-count").textContent = shown + " of " + body.rows.length + " runs";
    }
    function sortRows() {
      if (!sortKey) return;
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = (heads[a.dataset.run] || {})[sortKey], y = (heads[b.dataset.run] || {})[sortKey];
        if (sortKey === "name") { x = a.dataset.run; y = b.dataset.run; }
        if (x === y) return 0;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return (x < y ? -1 : 1) * sortDir;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    }
    Array.prototype.forEach.call(table.querySelectorAll("th[data-sort]"), function (th) {
      th.addEventListener("click", function () {
        sortDir = sortKey === th.dataset.sort ? -sortDir : 1; sortKey = th.dataset.sort; sortRows();
      });
    });
    filter.addEventListener("input", apply); family.addEventListener("change", apply);
    function cell(tr, cls, text) { var c = tr.querySelector("." + cls); if (c && c.textContent !== text) c.textContent = text; }
    function update(list) {
      var anyLive = false;
      list.forEach(function (h) {
        heads[h.name] = h;
        var tr = null;
        Array.prototype.forEach.call(body.rows, function (r) { if (r.dataset.run === h.name) tr = r; });
        if (!tr || h.error) return;
        anyLive = anyLive || h.writing || h.pending > 0;
        cell(tr, "c-rate", rateText(h.rate, h.ci95) + (h.judged ? " " + h.passed + "/" + h.judged : ""));
        cell(tr, "c-progress", h.done + "/" + h.expected + (h.writing ? " running" : h.pending ? " unfinished" : ""));
        cell(tr, "c-tokens", h.tokens.toLocaleString("en-US"));
        cell(tr, "c-cost", h.cost_usd === null ? "–" : "$" + h.cost_usd.toFixed(4));
      });
      sortRows(); apply();
      return anyLive;
    }
    function poll() {
      getJSON("/api/runs").then(function (list) {
        var live = update(list);
        setTimeout(poll, live ? POLL_MS : 5 * POLL_MS);
      }, function () { setTimeout(poll, 5 * POLL_MS); });
    }
    poll();
  }

  // ---- charts: hand-rolled SVG, hover for the counts ----
  var W = 380, H = 220, M = { l: 44, r: 12, t: 10, b: 38 };
  function frame(title) {
    var fig = el("figure", null, "chart"), s = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img" });
    fig.appendChild(el("h3", title)); fig.appendChild(s);
    return { fig: fig, s: s };
  }
  function rateChart(curve) {
    var f = frame("pass rate by " + curve.axis + " (95% CI)"), s = f.s, pts = curve.points;
    var xs = pts.map(function (p) { return p.x; }), x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    var pw = W - M.l - M.r, ph = H - M.t - M.b;
    function X(x) { return M.l + (x1 === x0 ? pw / 2 : (x - x0) / (x1 - x0) * pw); }
    function Y(y) { return M.t + (1 - y) * ph; }
    [0, 0.25, 0.5, 0.75, 1].forEach(function (y) {
      s.appendChild(svg("line", { x1: M.l, x2: W - M.r, y1: Y(y), y2: Y(y), stroke: "#e5e7eb" }));
      s.appendChild(svg("text", { x: M.l - 6, y: Y(y) + 4, "text-anchor": "end", "font-size": 10 }, (100 * y) + "%"));
    });
    s.appendChild(svg("text", { x: M.l + pw / 2, y: H - 6, "text-anchor": "middle", "font-size": 11 }, curve.axis));
    var path = pts.map(function (p, i) { return (i ? "L" : "M") + X(p.x).toFixed(1) + " " + Y(p.rate).toFixed(1); }).join(" ");
    s.appendChild(svg("path", { d: path, fill: "none", stroke: "#2563eb", "stroke-width": 1.5 }));
    pts.forEach(function (p) {
      var g = svg("g", { "class": "pt" });
      g.appendChild(svg("line", { x1: X(p.x), x2: X(p.x), y1: Y(p.lo), y2: Y(p.hi), stroke: "#2563eb" }));
      [p.lo, p.hi].forEach(function (y) {
        g.appendChild(svg("line", { x1: X(p.x) - 4, x2: X(p.x) + 4, y1: Y(y), y2: Y(y), stroke: "#2563eb" }));
      });
      g.appendChild(svg("circle", { cx: X(p.x), cy: Y(p.rate), r: 4, fill: "#2563eb" }));
      g.appendChild(svg("rect", { x: X(p.x) - 8, y: M.t, width: 16, height: ph, fill: "transparent" }));
      hover(g, curve.axis + " " + p.x + ": " + p.passed + "/" + p.cases + " passed, " + pct(p.rate) +
        " [" + pct(p.lo) + "–" + pct(p.hi) + "]");
      s.appendChild(g);
      s.appendChild(svg("text", { x: X(p.x), y: H - M.b + 14, "text-anchor": "middle", "font-size": 10 }, p.x));
    });
    return f.fig;
  }
  function barChart(title, counts) {
    var keys = Object.keys(counts), total = keys.reduce(function (a, k) { return a + counts[k]; }, 0);
    var rowH = 20, h = Math.max(60, keys.length * rowH + 20), f = frame(title), s = f.s, left = 150;
    s.setAttribute("height", h); s.setAttribute("viewBox", "0 0 " + W + " " + h);
    var max = Math.max.apply(null, keys.map(function (k) { return counts[k]; }).concat([1]));
    keys.forEach(function (k, i) {
      var y = 8 + i * rowH, w = (W - left - 40) * counts[k] / max, g = svg("g", { "class": "bar" });
      g.appendChild(svg("rect", { x: left, y: y, width: Math.max(1, w), height: rowH - 6, fill: "#f97316" }));
      g.appendChild(svg("text", { x: left - 6, y: y + 11, "text-anchor": "end", "font-size": 11 }, k.length > 26 ? k.slice(0, 25) + "…" : k));
      g.appendChild(svg("text", { x: left + w + 4, y: y + 11, "font-size": 10 }, counts[k]));
      hover(g, k + ": " + counts[k] + " of " + total + " failures (" + pct(counts[k] / total) + ")");
      s.appendChild(g);
    });
    if (!keys.length) s.appendChild(svg("text", { x: 10, y: 30, "font-size": 12 }, "no failures"));
    return f.fig;
  }
  function tallyRows(tbody, tallies) {
    tbody.textContent = "";
    Object.keys(tallies).forEach(function (k) {
      var t = tallies[k], tr = el("tr");
      [k, t.cases, t.passed, rateText(t.pass_rate, t.ci95)].forEach(function (v) { tr.appendChild(el("td", v)); });
      tbody.appendChild(tr);
    });
  }

  // ---- a run: plots, tables, the filterable case table; follows the run while it is written ----
  function runPage() {
    var name = document.body.dataset.run, rows = [], matches = null, lastDone = -1, PAGE = 500;
    var fText = document.getElementById("f-text"), fOutcome = document.getElementById("f-outcome");
    var fClass = document.getElementById("f-class"), fDiff = document.getElementById("f-difficulty");
    var fTopic = document.getElementById("f-topic");
    if (!fText) return;
    function fillSelect(sel, values) {
      var keep = sel.value, first = sel.options[0];
      sel.textContent = ""; sel.appendChild(first);
      values.forEach(function (v) { var o = el("option", v); o.value = v; sel.appendChild(o); });
      sel.value = keep;
    }
    function diffText(d) { return Object.keys(d).sort().map(function (k) { return k + " " + d[k]; }).join(", "); }
    function render() {
      var tbody = document.getElementById("case-table").tBodies[0], shown = 0, total = 0;
      tbody.textContent = "";
      rows.forEach(function (r) {
        if (fOutcome.value && r[2] !== fOutcome.value) return;
        if (fClass.value && r[3] !== fClass.value) return;
        if (fTopic.value && r[5] !== fTopic.value) return;
        if (fDiff.value && ("actions " + r[6].actions) !== fDiff.value) return;
        if (matches && !matches[r[0]]) return;
        total++;
        if (shown >= PAGE) return;
        shown++;
        var tr = el("tr"), a = el("a", r[0]);
        a.href = "/case?" + q("r", name) + "&" + q("c", r[0]) + "&" + q("t", r[1]);
        var td = el("td"); td.appendChild(a); tr.appendChild(td);
        tr.appendChild(el("td", r[1])); tr.appendChild(el("td", r[2], r[2]));
        [r[3], r[4], r[5], diffText(r[6])].forEach(function (v) { tr.appendChild(el("td", v)); });
        tbody.appendChild(tr);
      });
      document.getElementById("f-count").textContent = total + " of " + rows.length + " results" +
        (total > shown ? " (first " + shown + " shown)" : "");
    }
    function load() {
      return getJSON("/api/run?" + q("r", name)).then(function (d) {
        rows = d.rows;
        var plots = document.getElementById("plots"); plots.textContent = "";
        plots.appendChild(barChart("failures by error class", d.errors));
        d.curves.forEach(function (c) { plots.appendChild(rateChart(c)); });
        var et = document.getElementById("errors").tBodies[0]; et.textContent = "";
        Object.keys(d.errors).forEach(function (k) {
          var tr = el("tr"); tr.appendChild(el("td", k)); tr.appendChild(el("td", d.errors[k])); et.appendChild(tr);
        });
        tallyRows(document.getElementById("by-actions").tBodies[0], d.by_actions);
        tallyRows(document.getElementById("by-topic").tBodies[0], d.by_topic);
        var uniq = function (f) { var s = {}; rows.forEach(function (r) { var v = f(r); if (v) s[v] = 1; }); return Object.keys(s).sort(); };
        fillSelect(fClass, uniq(function (r) { return r[3]; }));
        fillSelect(fTopic, uniq(function (r) { return r[5]; }));
        fillSelect(fDiff, uniq(function (r) { return r[6].actions !== undefined ? "actions " + r[6].actions : ""; }));
        showHead(d.head);
        render();
      });
    }
    function showHead(h) {
      var set = function (id, v) { var e = document.getElementById(id); if (e && e.textContent !== String(v)) e.textContent = String(v); };
      set("results-count", h.done); set("passed-count", h.passed); set("rate", rateText(h.rate, h.ci95));
      set("infra-count", h.infra); set("pending-count", h.pending); set("calls-count", h.model_calls);
      set("tokens-count", h.tokens.toLocaleString("en-US")); set("cost", h.cost_usd === null ? "–" : "$" + h.cost_usd.toFixed(4));
      document.getElementById("live").hidden = !h.writing;
      lastDone = h.done;
    }
    var searchTimer = null;
    fText.addEventListener("input", function () {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(function () {
        var text = fText.value.trim();
        if (!text) { matches = null; render(); return; }
        getJSON("/api/search?" + q("r", name) + "&" + q("q", text)).then(function (ids) {
          matches = {}; ids.forEach(function (id) { matches[id] = 1; }); render();
        });
      }, 200);
    });
    [fOutcome, fClass, fDiff, fTopic].forEach(function (s) { s.addEventListener("change", render); });
    function poll() {
      getJSON("/api/head?" + q("r", name)).then(function (h) {
        var next = function () { setTimeout(poll, h.pending > 0 ? POLL_MS : 5 * POLL_MS); };
        if (h.done !== lastDone) load().then(next, next); else next();
      }, function () { setTimeout(poll, 5 * POLL_MS); });
    }
    load().then(function () { setTimeout(poll, POLL_MS); }, function () { setTimeout(poll, POLL_MS); });
  }

  // ---- a case: PMC's sub-task graph from its layout (numbers and plain strings) ----
  function casePage() {
    var raw = document.body.dataset.graph, box = document.getElementById("graph");
    if (!raw || !box) return;
    var g = JSON.parse(raw), s = svg("svg", { width: g.w, height: g.h, viewBox: "0 0 " + g.w + " " + g.h });
    var defs = svg("defs"), marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto" });
    marker.appendChild(svg("path", { d: "M0 0 L10 5 L0 10 z", fill: "#6b7280" })); defs.appendChild(marker); s.appendChild(defs);
    g.edges.forEach(function (e) {
      s.appendChild(svg("line", { x1: e[0], y1: e[1], x2: e[2], y2: e[3], stroke: "#6b7280", "marker-end": "url(#arrow)" }));
    });
    g.nodes.forEach(function (n) {
      var node = svg("g");
      node.appendChild(svg("rect", { x: n.x, y: n.y, width: g.bw, height: g.bh, rx: 6, fill: n.rewritten ? "#fef3c7" : "#eff6ff", stroke: "#60a5fa" }));
      node.appendChild(svg("text", { x: n.x + 6, y: n.y + 16, "font-size": 11, "font-weight": 600 }, n.id + " · " + n.executor));
      node.appendChild(svg("text", { x: n.x + 6, y: n.y + 32, "font-size": 10 }, n.label.length > 30 ? n.label.slice(0, 29) + "…" : n.label));
      hover(node, n.id + " (" + n.executor + "): " + n.label + (n.rewritten ? " [rewritten]" : ""));
      s.appendChild(node);
    });
    box.appendChild(s);
    if (g.global && g.global.length) {
      var ul = el("ul"); g.global.forEach(function (t) { ul.appendChild(el("li", t)); });
      box.appendChild(el("p", "global constraints:", "sub")); box.appendChild(ul);
    }
  }

  if (page === "runs") runsPage();
  else if (page === "run") runPage();
  else if (page === "case") casePage();
})();
