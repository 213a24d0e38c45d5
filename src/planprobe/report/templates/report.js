// planprobe report: the filterable case table and the per-case drill-down.
// Every string from the data is suite or model text: it only ever reaches the page
// through textContent / createTextNode, never as markup.
(function () {
  "use strict";
  var loading = document.getElementById("loading");

  // the data block: base64 of gzip-compressed JSON (see report/html.py)
  function inflate(b64) {
    var bin = atob(b64.trim()), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }
  if (typeof DecompressionStream === "undefined") {
    loading.textContent = "This browser cannot read the report's compressed case data (it needs DecompressionStream: " +
      "Chrome 80+, Firefox 113+, Safari 16.4+). The summary above is complete.";
    return;
  }
  inflate(document.getElementById("report-data").textContent).then(start, function (err) {
    loading.textContent = "Could not read the report's case data: " + err;
  });

function start(data) {
  loading.hidden = true;
  var runs = data.runs, cases = data.cases, multi = runs.length > 1, PAGE = 200;

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function outcome(row) { return !row ? "–" : row.infra ? "infra" : row.passed ? "pass" : "fail"; }

  // one entry per (case, trial), in the first run's order, with each run's row
  var entries = [], index = {};
  runs.forEach(function (run, r) {
    run.rows.forEach(function (row) {
      var key = row.id + "\u0000" + row.trial;
      if (!(key in index)) { index[key] = entries.length; entries.push({ id: row.id, trial: row.trial, rows: [] }); }
      entries[index[key]].rows[r] = row;
    });
  });
  entries.forEach(function (e) {
    var c = cases[e.id];
    e.task = c.task; e.topic = c.topic; e.difficulty = c.difficulty;
    e.outcomes = runs.map(function (_, r) { return outcome(e.rows[r]); });
    e.search = (e.id + " " + e.topic + " " + e.task).toLowerCase();
  });

  function options(select, label, values) {
    select.appendChild(new Option(label, ""));
    values.forEach(function (v) { select.appendChild(new Option(v[1], v[0])); });
  }
  function uniq(list) { return Array.from(new Set(list)).sort(); }
  var fText = document.getElementById("f-text"), fOut = document.getElementById("f-outcome"),
      fErr = document.getElementById("f-error"), fTopic = document.getElementById("f-topic"),
      fDiff = document.getElementById("f-diff");
  var outs = [["pass", "passed (any run)"], ["fail", "failed (any run)"], ["infra", "infra (any run)"]];
  if (multi) outs.push(["differs", "outcome differs between runs"]);
  options(fOut, "all outcomes", outs);
  var errs = uniq([].concat.apply([], entries.map(function (e) {
    return e.rows.filter(Boolean).map(function (r) { return r.error; });
  })).filter(Boolean));
  options(fErr, "all error classes", errs.map(function (v) { return [v, v]; }));
  options(fTopic, "all topics", uniq(entries.map(function (e) { return e.topic; }).filter(Boolean))
    .map(function (v) { return [v, v]; }));
  var diffs = uniq([].concat.apply([], entries.map(function (e) {
    return Object.keys(e.difficulty).map(function (k) { return k + "=" + e.difficulty[k]; });
  })));
  options(fDiff, "all difficulties", diffs.map(function (v) { return [v, v]; }));

  var table = document.getElementById("case-table"), tbody = table.tBodies[0], more = document.getElementById("more");
  var head = el("tr");
  ["case", "trial"].concat(runs.map(function (run) { return multi ? run.name : "outcome"; }))
    .concat(["error", "root cause", "topic", "difficulty", "time (s)", "tokens"])
    .forEach(function (h) { head.appendChild(el("th", h)); });
  table.tHead.appendChild(head);

  var shown = [], limit = PAGE, selected = null;
  function matches(e) {
    var q = fText.value.trim().toLowerCase();
    if (q && e.search.indexOf(q) < 0) return false;
    var o = fOut.value;
    if (o === "differs") { if (uniq(e.outcomes).length < 2) return false; }
    else if (o && e.outcomes.indexOf(o) < 0) return false;
    if (fErr.value && !e.rows.some(function (r) { return r && r.error === fErr.value; })) return false;
    if (fTopic.value && e.topic !== fTopic.value) return false;
    if (fDiff.value) {
      var kv = fDiff.value.split("="), k = kv[0], v = kv.slice(1).join("=");
      if (String(e.difficulty[k]) !== v) return false;
    }
    return true;
  }
  function firstOf(e, key) {
    var vals = e.rows.map(function (r) { return r ? r[key] : ""; }).filter(Boolean);
    return uniq(vals).join(" / ");
  }
  function render() {
    shown = entries.filter(matches);
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    shown.slice(0, limit).forEach(function (e) {
      var tr = el("tr");
      tr.appendChild(el("td", e.id)); tr.appendChild(el("td", e.trial));
      e.outcomes.forEach(function (o) { tr.appendChild(el("td", o, o)); });
      tr.appendChild(el("td", firstOf(e, "error"))); tr.appendChild(el("td", firstOf(e, "cause")));
      tr.appendChild(el("td", e.topic));
      tr.appendChild(el("td", Object.keys(e.difficulty).map(function (k) { return k + "=" + e.difficulty[k]; }).join(", ")));
      var any = e.rows.filter(Boolean)[0];
      tr.appendChild(el("td", any.wall)); tr.appendChild(el("td", any.tokens));
      if (e === selected) tr.className = "sel";
      tr.addEventListener("click", function () { select(e, true); });
      tbody.appendChild(tr);
    });
    document.getElementById("f-count").textContent =
      Math.min(limit, shown.length) + " of " + shown.length + " shown (" + entries.length + " in all)";
    more.hidden = shown.length <= limit;
  }
  more.addEventListener("click", function () { limit += PAGE; render(); });
  [fText, fOut, fErr, fTopic, fDiff].forEach(function (f) {
    f.addEventListener("input", function () { limit = PAGE; render(); });
  });

  // the task text with the blamed clauses marked, built node by node
  function taskNode(task, marks) {
    var box = el("div", null, "task"), pos = 0;
    marks.slice().sort(function (a, b) { return a[0] - b[0]; }).forEach(function (m) {
      var s = Math.max(m[0], pos), t = Math.min(m[1], task.length);
      if (s >= t) return;
      box.appendChild(document.createTextNode(task.slice(pos, s)));
      box.appendChild(el("mark", task.slice(s, t)));
      pos = t;
    });
    box.appendChild(document.createTextNode(task.slice(pos)));
    return box;
  }
  // PMC's sub-task graph: built with DOM calls, every text set through textContent
  function subtaskGraph(g) {
    var NS = "http://www.w3.org/2000/svg", box = el("div");
    box.appendChild(el("h4", "Sub-task graph (PMC manager; columns run concurrently, arrows are depends_on, " +
      "dashed: rewritten by the supervisor)"));
    function node(name, attrs, text) {
      var n = document.createElementNS(NS, name);
      Object.keys(attrs).forEach(function (k) { n.setAttribute(k, String(attrs[k])); });
      if (text !== undefined) n.textContent = String(text);
      return n;
    }
    var svg = node("svg", {width: g.w, height: g.h, viewBox: "0 0 " + g.w + " " + g.h, role: "img"});
    svg.appendChild(node("title", {}, "sub-task graph"));
    g.edges.forEach(function (e) {
      svg.appendChild(node("line", {x1: e[0], y1: e[1], x2: e[2], y2: e[3], stroke: "#555", "stroke-width": 1.5}));
      svg.appendChild(node("circle", {cx: e[2], cy: e[3], r: 3, fill: "#555"}));
    });
    g.nodes.forEach(function (n) {
      var grp = node("g", {});
      grp.appendChild(node("title", {}, n.id + " (" + n.executor + "): " + n.label));
      grp.appendChild(node("rect", {x: n.x, y: n.y, width: g.bw, height: g.bh, rx: 6, fill: "#eef3fb", stroke: "#335",
        "stroke-dasharray": n.rewritten ? "4 3" : "none"}));
      grp.appendChild(node("text", {x: n.x + 6, y: n.y + 16, "font-size": 12, "font-weight": "bold"}, n.id + " · " + n.executor));
      grp.appendChild(node("text", {x: n.x + 6, y: n.y + 34, "font-size": 11}, n.label.slice(0, 28)));
      svg.appendChild(grp);
    });
    box.appendChild(svg);
    if (g.global.length) box.appendChild(el("p", "global constraints: " + g.global.join("; ")));
    return box;
  }
  function runDetail(row, r) {
    var box = el("div");
    box.appendChild(el("h3", (multi ? runs[r].name + ": " : "") + outcome(row) +
      (row.errors.length ? " — " + row.errors.join(", ") : "") + (row.judged ? " (judged)" : "")));
    if (row.cause) box.appendChild(el("p", "root cause (dissect): " + row.cause));
    box.appendChild(el("p", "status: " + row.status + (row.checker ? " · checker: " + row.checker : "")));
    if (row.evidence.length) {
      box.appendChild(el("h4", "Verdict evidence"));
      row.evidence.forEach(function (ev) {
        var p = el("div", null, "ev");
        p.appendChild(el("span", ev.error, "tag")); p.appendChild(el("span", ev.kind, "tag"));
        if (ev.step !== null && ev.step !== undefined) p.appendChild(el("span", "call #" + (ev.step + 1), "tag"));
        p.appendChild(el("pre", ev.symbolic)); if (ev.text) p.appendChild(el("pre", "“" + ev.text + "”"));
        box.appendChild(p);
      });
    }
    if (row.trace_errors.length) {
      box.appendChild(el("h4", "Run errors"));
      row.trace_errors.forEach(function (t) { box.appendChild(el("pre", t)); });
    }
    if (row.graph) box.appendChild(subtaskGraph(row.graph));
    box.appendChild(el("h4", "Tool calls (" + row.calls.length + ")"));
    if (row.calls.length) {
      var t = el("table", null, "grid"), h = el("tr");
      ["#", "attempt", "by", "tool", "arguments", "result", "error"].forEach(function (x) { h.appendChild(el("th", x)); });
      t.appendChild(h);
      row.calls.forEach(function (c, i) {
        var tr = el("tr");
        [i + 1, c.at, c.by || "", c.n].forEach(function (x) { tr.appendChild(el("td", x)); });
        [c.a, c.r].forEach(function (x) { var td = el("td"); td.appendChild(el("pre", x)); tr.appendChild(td); });
        tr.appendChild(el("td", c.e, c.e ? "fail" : ""));
        t.appendChild(tr);
      });
      box.appendChild(t);
    }
    if (row.replies.length) {
      box.appendChild(el("h4", "Model replies"));
      row.replies.forEach(function (x) { box.appendChild(el("pre", x)); });
    }
    if (row.final) { box.appendChild(el("h4", "Final answer")); box.appendChild(el("pre", row.final)); }
    return box;
  }
  function select(e, updateHash) {
    selected = e;
    var d = document.getElementById("detail");
    while (d.firstChild) d.removeChild(d.firstChild);
    var any = e.rows.filter(Boolean)[0];
    d.appendChild(el("h3", "Case " + e.id + " · trial " + e.trial));
    d.appendChild(el("h4", "Task" + (any.marks.length ? " (highlighted: the clauses the verdict cites)" : "")));
    d.appendChild(taskNode(e.task, any.marks));
    e.rows.forEach(function (row, r) { if (row) d.appendChild(runDetail(row, r)); });
    d.hidden = false;
    if (updateHash) history.replaceState(null, "", "#case=" + encodeURIComponent(e.id) + "&trial=" + e.trial);
    render();
    if (updateHash) d.scrollIntoView();
  }
  function fromHash() {
    var m = /^#case=([^&]*)(?:&trial=(\d+))?/.exec(location.hash);
    if (!m) return;
    var id = decodeURIComponent(m[1]), trial = m[2] ? Number(m[2]) : 0;
    var found = entries.filter(function (e) { return e.id === id && e.trial === trial; })[0];
    if (found) { fText.value = id; select(found, false); }
  }
  render();
  fromHash();
}
})();
