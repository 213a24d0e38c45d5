"""A straightforward pure-Python port of TravelPlanner's official evaluator
(evaluation/commonsense_constraint.py, hard_constraint.py, eval.py at
OSU-NLP-Group/TravelPlanner), function by function, with a tiny stand-in for the
pandas filters it uses (full scans over row dicts, no indexes).

It is the independent reference the tests compare planprobe's evaluator with,
and the peer of benchmarks/travelplanner_speed.py. It shares nothing with
planprobe's evaluator but the tables (plain lists of row dicts).
"""

from __future__ import annotations

import math
import re


class Tables:
    def __init__(self, flights, accommodations, restaurants, attractions, distances, cities):
        self.flights, self.accommodations = flights, accommodations
        self.restaurants, self.attractions = restaurants, attractions
        self.distances = distances  # dicts: origin, destination, duration, distance
        self.city_state = cities


def where(rows, **conds):
    out = []
    for r in rows:
        ok = True
        for col, test in conds.items():
            col = col.replace("__", " ")
            if not test(r[col]):
                ok = False
                break
        if ok:
            out.append(r)
    return out


def contains(name):
    pat = re.compile(re.escape(name))
    return lambda v: bool(pat.search(str(v)))


def equals(x):
    return lambda v: v == x


def extract_from_to(text):
    m = re.search(r"from\s+(.+?)\s+to\s+([^,]+)(?=[,\s]|$)", text)
    return m.groups() if m else (None, None)


def extract_before_parenthesis(s):
    m = re.search(r"^(.*?)\([^)]*\)", s)
    return m.group(1) if m else s


def get_valid_name_city(info):
    m = re.search(r"(.*?),\s*([^,]+)(\(\w[\w\s]*\))?$", info)
    if m:
        return m.group(1).strip(), extract_before_parenthesis(m.group(2).strip()).strip()
    return "-", "-"


def distance_eval(t, origin, destination, mode):
    origin, destination = extract_before_parenthesis(origin), extract_before_parenthesis(destination)
    info = {"cost": None}
    rows = [r for r in t.distances if r["origin"] == origin and r["destination"] == destination]
    if rows:
        if rows[0]["duration"] is None or rows[0]["distance"] is None:
            return info
        if "day" not in rows[0]["duration"]:
            km = float(rows[0]["distance"].replace("km", "").replace(",", ""))
            if "driving" in mode:
                info["cost"] = int(km * 0.05)
            elif mode == "taxi":
                info["cost"] = int(km)
    return info


def count_consecutive_values(lst):
    if not lst:
        return []
    result, cur, count = [], lst[0], 1
    for x in lst[1:]:
        if x == cur:
            count += 1
        else:
            result.append((cur, count))
            cur, count = x, 1
    result.append((cur, count))
    return result


def transportation_match(text):
    if "taxi" in text.lower():
        return "Taxi"
    elif "self-driving" in text.lower():
        return "Self-driving"
    elif "flight" in text.lower():
        return "Flight"


def is_valid_city_sequence(city_list):
    if len(city_list) < 3:
        return False
    visited = set()
    i = 0
    while i < len(city_list):
        city = city_list[i]
        if city in visited and (i != 0 and i != len(city_list) - 1):
            return False
        count = 0
        while i < len(city_list) and city_list[i] == city:
            count += 1
            i += 1
        if count == 1 and 0 < i - 1 < len(city_list) - 1:
            return False
        visited.add(city)
    return True


def is_reasonable_visiting_city(t, q, plan):
    city_list = []
    for i in range(min(q["days"], len(plan))):
        cv = plan[i]["current_city"]
        if "from" in cv:
            c1, c2 = extract_from_to(cv)
            c1, c2 = extract_before_parenthesis(c1), extract_before_parenthesis(c2)
            if i == 0 and c1 != q["org"]:
                return False, "first"
            city_list += [c1, c2]
        else:
            city_list.append(extract_before_parenthesis(cv))
    if city_list[0] != city_list[-1]:
        return False, "circle"
    if not is_valid_city_sequence(city_list):
        return False, "sequence"
    for idx, city in enumerate(city_list):
        if city not in t.city_state:
            return False, "city"
        if idx not in [0, len(city_list) - 1] and q["days"] > 3 and t.city_state[city] != q["dest"]:
            return False, "state"
    return True, None


def is_valid_restaurants(t, q, plan):
    seen = []
    for i in range(min(q["days"], len(plan))):
        unit = plan[i]
        for meal in ("breakfast", "lunch", "dinner"):
            if meal in unit and unit[meal] and unit[meal] != "-":
                if unit[meal] not in seen:
                    seen.append(unit[meal])
                else:
                    return False, "repeat"
    return True, None


def is_valid_attractions(t, q, plan):
    seen = []
    for i in range(min(q["days"], len(plan))):
        unit = plan[i]
        if "attraction" in unit and unit["attraction"] and unit["attraction"] != "-":
            for a in unit["attraction"].split(";")[:-1]:
                if a not in seen:
                    seen.append(a)
                else:
                    return False, "repeat"
    return True, None


def is_valid_transportation(t, q, plan):
    if plan[0]["transportation"] and plan[0]["transportation"] != "-":
        kinds = [transportation_match(plan[0]["transportation"])]
    else:
        return False, "empty"
    for i in range(min(q["days"], len(plan))):
        unit = plan[i]
        if "transportation" in unit and unit["transportation"] and unit["transportation"] != "-":
            kinds.append(transportation_match(unit["transportation"]))
    if (("Self-driving" in kinds) and ("Flight" in kinds)) or (("Taxi" in kinds) and ("Self-driving" in kinds)):
        return False, "conflict"
    return True, None


def is_valid_information_in_current_city(t, q, plan):
    for i in range(min(q["days"], len(plan))):
        unit = plan[i]
        cc = unit["current_city"]
        if "from" in cc:
            c1, c2 = extract_from_to(cc)
            final = [extract_before_parenthesis(c1), extract_before_parenthesis(c2)]
        else:
            final = extract_before_parenthesis(cc)
        if "transportation" in unit and unit["transportation"] and unit["transportation"] != "-":
            for city in final:
                if city not in unit["transportation"]:
                    return False, "transportation"
        for meal in ("breakfast", "lunch", "dinner"):
            if meal in unit and unit[meal] and unit[meal] != "-":
                flag = False
                for city in final:
                    if city in unit[meal]:
                        flag = True
                if not flag:
                    return False, meal
        if "attraction" in unit and unit["attraction"] and unit["attraction"] != "-":
            for a in unit["attraction"].split(";")[:-1]:
                flag = False
                for city in final:
                    if city in a:
                        flag = True
                if not flag:
                    return False, "attraction"
        if "accommodation" in unit and unit["accommodation"] and unit["accommodation"] != "-":
            if final[-1] not in unit["accommodation"]:
                return False, "accommodation"
    return True, None


def is_valid_information_in_sandbox(t, q, plan):
    for i in range(min(q["days"], len(plan))):
        unit = plan[i]
        if unit["transportation"] and unit["transportation"] != "-":
            value = unit["transportation"]
            org, dest = extract_from_to(value)
            if org is None or dest is None:
                org, dest = extract_from_to(unit["current_city"])
            if "flight number" in value.lower():
                org, dest = extract_before_parenthesis(org), extract_before_parenthesis(dest)
                number = value.split("Flight Number: ")[1].split(",")[0]
                if len(where(t.flights, Flight__Number=equals(number), OriginCityName=equals(org),
                             DestCityName=equals(dest))) < 1:
                    return False, "flight"
            elif "self-driving" in value.lower() or "taxi" in value.lower():
                try:
                    org, dest = extract_before_parenthesis(org), extract_before_parenthesis(dest)
                except TypeError:
                    org, dest = "-", "-"
                mode = "self-driving" if "self-driving" in value.lower() else "taxi"
                if distance_eval(t, org, dest, mode)["cost"] is None:
                    return False, mode
        for meal in ("breakfast", "lunch", "dinner"):
            if meal in unit and unit[meal] and unit[meal] != "-":
                name, city = get_valid_name_city(unit[meal])
                if len(where(t.restaurants, Name=contains(name), City=equals(city))) < 1:
                    return False, meal
        if "attraction" in unit and unit["attraction"] and unit["attraction"] != "-":
            for a in unit["attraction"].split(";")[:-1]:
                name, city = get_valid_name_city(a)
                if len(where(t.attractions, Name=contains(name), City=equals(city))) < 1:
                    return False, "attraction"
        if "accommodation" in unit and unit["accommodation"] and unit["accommodation"] != "-":
            name, city = get_valid_name_city(unit["accommodation"])
            if len(where(t.accommodations, NAME=contains(name), city=equals(city))) < 1:
                return False, "accommodation"
    return True, None


def is_valid_accommodation(t, q, plan):
    data = []
    for i in range(min(q["days"], len(plan))):
        if "accommodation" not in plan[i]:
            return False, "none"
        data.append(plan[i]["accommodation"])
    for unit in count_consecutive_values(data):
        if unit and unit[0] not in ["-", ""]:
            name, city = get_valid_name_city(unit[0])
            rows = where(t.accommodations, NAME=contains(name), city=equals(city))
            if len(rows) == 1 and unit[1] < rows[0]["minimum nights"]:
                return False, "nights"
    return True, None


def is_valid_visiting_city_number(t, q, plan):
    cities = set()
    for i in range(min(q["days"], len(plan))):
        cv = plan[i]["current_city"]
        if "from" in cv:
            c1, c2 = extract_from_to(cv)
            c1, c2 = extract_before_parenthesis(c1), extract_before_parenthesis(c2)
            if i == 0 and c1 != q["org"]:
                return False, "first"
            cities.add(c1)
            cities.add(c2)
        else:
            cities.add(extract_before_parenthesis(cv))
    cities.discard(q["org"])
    if len(cities) != q["visiting_city_number"]:
        return False, "number"
    return True, None


def is_valid_days(t, q, plan):
    n = 0
    for i in range(min(q["days"], len(plan))):
        if plan[i] != {} and plan[i]["current_city"] != "You don't need to fill in the information for this or later days.":
            n += 1
    return (True, None) if n == q["days"] else (False, "days")


def is_not_absent(t, q, plan):
    needed = 6 * q["days"]
    total = 0
    if not is_valid_days(t, q, plan)[0]:
        return False, "Invalid Days"
    if not is_valid_visiting_city_number(t, q, plan)[0]:
        return False, "Invalid City Number"
    for i in range(min(q["days"], len(plan))):
        unit = plan[i]
        for key in ("transportation", "breakfast", "lunch", "dinner", "attraction", "accommodation"):
            if key not in unit:
                return False, key
        if ("from " in unit["current_city"] or "to " in unit["current_city"]) and unit["transportation"] in ["", "-"]:
            return False, "transportation"
        if ("from " not in unit["current_city"] and " to " not in unit["current_city"]) and unit["attraction"] in ["", "-"]:
            return False, "attraction"
        if i != q["days"] - 1 and unit["accommodation"] in ["", "-"]:
            return False, "accommodation"
        if (unit["breakfast"] in ["", "-"] or unit["lunch"] in ["", "-"] or unit["dinner"] in ["", "-"]) \
                and "from " not in unit["current_city"]:
            return False, "meal"
        for key in unit:
            if unit[key] and unit[key] != "-":
                total += 1
    if total * 1.0 / needed < 0.5:
        return False, "absent"
    return True, None


def commonsense_eval(t, q, plan):
    return {
        "is_reasonable_visiting_city": is_reasonable_visiting_city(t, q, plan),
        "is_valid_restaurants": is_valid_restaurants(t, q, plan),
        "is_valid_attractions": is_valid_attractions(t, q, plan),
        "is_valid_accommodation": is_valid_accommodation(t, q, plan),
        "is_valid_transportation": is_valid_transportation(t, q, plan),
        "is_valid_information_in_current_city": is_valid_information_in_current_city(t, q, plan),
        "is_valid_information_in_sandbox": is_valid_information_in_sandbox(t, q, plan),
        "is_not_absent": is_not_absent(t, q, plan),
    }


def get_total_cost(t, q, plan):
    total = 0
    for i in range(min(q["days"], len(plan))):
        unit = plan[i]
        if unit["transportation"] and unit["transportation"] != "-":
            value = unit["transportation"]
            org, dest = extract_from_to(value)
            if org is None or dest is None:
                org, dest = extract_from_to(unit["current_city"])
            if org is not None and dest is not None:
                if "flight number" in value.lower():
                    res = where(t.flights, Flight__Number=equals(value.split("Flight Number: ")[1].split(",")[0]))
                    if res:
                        total += res[0]["Price"] * q["people_number"]
                elif "self-driving" in value.lower():
                    total += distance_eval(t, org, dest, "self-driving")["cost"] * math.ceil(q["people_number"] / 5)
                elif "taxi" in value.lower():
                    total += distance_eval(t, org, dest, "taxi")["cost"] * math.ceil(q["people_number"] / 4)
        for meal in ("breakfast", "lunch", "dinner"):
            if unit[meal] and unit[meal] != "-":
                name, city = get_valid_name_city(unit[meal])
                res = where(t.restaurants, Name=contains(name), City=equals(city))
                if res:
                    total += res[0]["Average Cost"] * q["people_number"]
        if unit["accommodation"] and unit["accommodation"] != "-":
            name, city = get_valid_name_city(unit["accommodation"])
            res = where(t.accommodations, NAME=contains(name), city=equals(city))
            if res:
                total += res[0]["price"] * math.ceil(q["people_number"] / res[0]["maximum occupancy"])
    return total


def is_valid_room_rule(t, q, plan):
    rule = q["local_constraint"]["house rule"]
    if rule is None:
        return None, None
    texts = {"smoking": "No smoking", "parties": "No parties", "children under 10": "No children under 10",
             "visitors": "No visitors", "pets": "No pets"}
    for i in range(min(q["days"], len(plan))):
        unit = plan[i]
        if unit["accommodation"] and unit["accommodation"] != "-":
            name, city = get_valid_name_city(unit["accommodation"])
            res = where(t.accommodations, NAME=contains(name), city=equals(city))
            if res and rule in texts and texts[rule] in str(res[0]["house_rules"]):
                return False, "rule"
    return True, None


def is_valid_cuisine(t, q, plan):
    wanted = q["local_constraint"]["cuisine"]
    if not wanted:
        return None, None
    found = set()
    for i in range(min(q["days"], len(plan))):
        unit = plan[i]
        skip = False
        for meal in ("breakfast", "lunch", "dinner"):
            if skip:
                break
            if unit[meal] and unit[meal] != "-":
                name, city = get_valid_name_city(unit[meal])
                if city == q["org"]:
                    skip = True
                    continue
                res = where(t.restaurants, Name=contains(name), City=equals(city))
                if res:
                    for c in wanted:
                        if c in res[0]["Cuisines"]:
                            found.add(c)
    if len(found) == len(wanted):
        return True, None
    for c in wanted:
        if c not in found:
            return False, c


def is_valid_transportation_rule(t, q, plan):
    rule = q["local_constraint"]["transportation"]
    if rule is None:
        return None, None
    for i in range(min(q["days"], len(plan))):
        value = plan[i]["transportation"]
        if value and value != "-":
            if rule == "no flight" and "Flight" in value:
                return False, rule
            elif rule == "no self-driving" and "Self-driving" in value:
                return False, rule
    return True, None


def is_valid_room_type(t, q, plan):
    wanted = q["local_constraint"]["room type"]
    if wanted is None:
        return None, None
    for i in range(min(q["days"], len(plan))):
        unit = plan[i]
        if unit["accommodation"] and unit["accommodation"] != "-":
            name, city = get_valid_name_city(unit["accommodation"])
            res = where(t.accommodations, NAME=contains(name), city=equals(city))
            if res:
                kind = res[0]["room type"]
                if wanted == "not shared room" and kind == "Shared room":
                    return False, wanted
                elif wanted == "shared room" and kind != "Shared room":
                    return False, wanted
                elif wanted == "private room" and kind != "Private room":
                    return False, wanted
                elif wanted == "entire room" and kind != "Entire home/apt":
                    return False, wanted
    return True, None


def hard_eval(t, q, plan):
    return {
        "valid_cuisine": is_valid_cuisine(t, q, plan),
        "valid_room_rule": is_valid_room_rule(t, q, plan),
        "valid_transportation": is_valid_transportation_rule(t, q, plan),
        "valid_room_type": is_valid_room_type(t, q, plan),
        "valid_cost": (bool(get_total_cost(t, q, plan) <= q["budget"]), None),
    }


def evaluate(t, q, plan):
    """(commonsense box, hard box or None) as eval.py stores them per plan."""
    if not plan:
        return None, None
    common = commonsense_eval(t, q, plan)
    hard = hard_eval(t, q, plan) if common["is_not_absent"][0] and common["is_valid_information_in_sandbox"][0] else None
    return common, hard


def scores(t, queries, plans, hard_totals):
    """eval.py's six figures (denominators: 8 per query, the given hard totals)."""
    delivered = cs_pass = hard_pass = cs_macro = hard_macro = final = 0
    for q, plan in zip(queries, plans):
        common, hard = evaluate(t, q, plan)
        if common is None:
            continue
        delivered += 1
        cs_pass += sum(list(v).count(True) for v in common.values())
        if hard is not None:
            hard_pass += sum(list(v).count(True) for v in hard.values())
            c_ok = all(not (v[0] is not None and not v[0]) for v in common.values())
            h_ok = all(not (v[0] is not None and v[0] is False) for v in hard.values())
            cs_macro += c_ok
            hard_macro += h_ok
            final += c_ok and h_ok
    n = len(queries)
    return {"delivery_rate": delivered / n, "commonsense_micro": cs_pass / (8 * n), "commonsense_macro": cs_macro / n,
            "hard_micro": hard_pass / sum(hard_totals), "hard_macro": hard_macro / n, "final_pass_rate": final / n}
