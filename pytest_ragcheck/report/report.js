(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("ragcheck-data").textContent);
  // The status vocabulary (pytest_ragcheck/report/labels.py), the same in every output.
  var LABELS = JSON.parse(document.getElementById("ragcheck-labels").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";
  var ORDER = LABELS.order, WORDS = LABELS.words, FAILING = {};
  LABELS.failing.forEach(function (s) { FAILING[s] = 1; });
  var IMPROVED_NOTE = /^improved beyond tolerance/;

  // ---- small DOM helpers: data is always inserted as text, never as HTML -------------------
  function el(tag, attrs) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function sv(tag, attrs) {
    var node = document.createElementNS(SVGNS, tag);
    setAttrs(node, attrs);
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function setAttrs(node, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (key) {
      var value = attrs[key];
      if (value === null || value === undefined || value === false) return;
      if (key === "text") node.textContent = String(value);
      else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    });
  }
  function append(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); return; }
    node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }

  // ---- formatting (same rules as the terminal summary) ----------------------------------
  function isLatency(name) { return name.indexOf("latency_") === 0; }
  function fmt(name, v) {
    if (v === null || v === undefined) return "–";
    return isLatency(name) ? v.toFixed(1) : halfUp(v, Math.abs(v) >= 100 ? 1 : 3);
  }
  // As pytest_ragcheck.display.format_value: rounded half-up from the value at baseline
  // precision (4 decimals), so a stored 0.5285 reads 0.529 here as in the terminal.
  function halfUp(v, decimals) {
    var units = Number(Math.abs(v).toFixed(4).replace(".", ""));  // in 0.0001
    var step = Math.pow(10, 4 - decimals);
    var text = (Math.floor((units + step / 2) / step) / Math.pow(10, decimals)).toFixed(decimals);
    return (v < 0 ? "-" : "") + text;
  }
  // A p-value with `digits` significant digits, rounded as Python's format(p, ".3g") is (an
  // exact tie, such as the sign-flip test's 1/32 = 0.03125, to even: 0.0312), so the page
  // reads the p of the terminal; toPrecision alone rounds ties up.
  function pDigits(p, digits) {
    var m = /^(\d)\.(\d+)e([-+]\d+)$/.exec(p.toExponential(60));
    if (m) {
      var all = m[1] + m[2], rest = all.slice(digits);
      if (/^50*$/.test(rest) && Number(all[digits - 1]) % 2 === 0) {
        return String(Number(all.slice(0, digits) + "e" + (Number(m[3]) - digits + 1)));
      }
    }
    return String(Number(p.toPrecision(digits)));
  }
  function fmtDelta(name, d) {
    if (d === null || d === undefined) return "–";
    var text = (d >= 0 ? "+" : "−") + Math.abs(d).toFixed(isLatency(name) ? 1 : 3);
    return text;
  }
  function badge(status) {
    return el("span", { "class": "badge s-" + status, text: WORDS[status] || status });
  }
  // A check's status with its basis when the paired test did not decide it, as in the
  // terminal: "regressed (tolerance; too few changed cases to test)".
  function untested(m) { return (m.status === "regressed" || m.status === "improved") && LABELS.bases[m.basis]; }
  function checkBadge(m) {
    var node = badge(m.status);
    if (untested(m)) { node.textContent += " (" + LABELS.bases[m.basis] + ")"; node.setAttribute("data-basis", m.basis); }
    return node;
  }
  // A node id as text with line-break opportunities after its separators, so a narrow column
  // wraps it between words ("test_tags.py::" / "test_topic[") rather than between letters.
  function breakable(text) {
    return String(text).split(/(?<=::|[\/\[_.-])/).map(function (part, i) {
      return i ? [el("wbr"), part] : part;
    });
  }
  // A case id on one line (never "cisi-" / "32"), cut with … past its column's width; and a
  // query clipped to two lines (the drill-down shows it whole), both whole on hover.
  function caseIdCell(id) { return el("td", { "class": "mono case-id", title: id, text: id }); }
  function clipped(text) { return el("div", { "class": "clip", title: text, text: text }); }
  function rank(status) { var i = ORDER.indexOf(status); return i < 0 ? 99 : i; }
  function testName(t) { return t.nodeid + (t.call ? " [call " + (t.call + 1) + "]" : ""); }
  // A per-tag check ("mrr@10 [tag pricing]", per_tag=True): a row of its own, no per-case values.
  function tagOf(name) { var m = / \[tag (.*)\]$/.exec(name); return m ? m[1] : null; }
  function qualityMetrics(t) { return t.metrics.filter(function (m) { return m.kind !== "latency" && tagOf(m.name) === null; }); }
  // A per-tag row that neither failed nor changed beyond tolerance: behind "N tags held", as
  // in the terminal summary.
  function held(m) { return tagOf(m.name) !== null && m.status === "pass" && !m.basis; }
  function better(m, d) { return m.higher_is_better ? d > 0 : d < 0; }
  // The value compared with the baseline: the shared cases' when the golden set changed.
  function cur(m) { return m.current === undefined || m.current === null ? m.value : m.current; }
  // [shared, all] case counts when a metric was compared on the shared cases only, else null.
  function sharedCounts(t) {
    var m = t.metrics.filter(function (x) { return x.compared !== null && x.compared !== undefined; })[0];
    return m ? [m.compared_cases, m.all_cases] : null;
  }
  function sharedSuffix(t, shown) {
    var counts = sharedCounts({ metrics: shown });
    if (!counts || counts[0] === null || counts[0] === undefined) return "";
    return " · compared on " + counts[0] + " shared" + (counts[1] === null || counts[1] === undefined ? "" : " of " + counts[1]) + " cases";
  }

  var tests = data.tests.map(function (t, i) { t._index = i; return t; });
  var attention = tests.slice().sort(function (a, b) {
    return rank(a.status) - rank(b.status) || (a.nodeid < b.nodeid ? -1 : a.nodeid > b.nodeid ? 1 : 0) || a.call - b.call;
  });

  // ---- page head --------------------------------------------------------------------------
  function header() {
    var run = data.run || {};
    var counts = {};
    tests.forEach(function (t) { counts[t.status] = (counts[t.status] || 0) + 1; });
    var chips = [el("span", { "class": "chip", text: tests.length + (tests.length === 1 ? " test" : " tests") })];
    ORDER.forEach(function (s) {
      if (counts[s]) chips.push(el("span", { "class": "chip s-" + s, "data-status": s, text: counts[s] + " " + WORDS[s] }));
    });
    var meta = [run.generator, run.created_at ? "written " + run.created_at.replace("T", " ") : null,
      run.pytest_version ? "pytest " + run.pytest_version : null,
      run.python_version ? "Python " + run.python_version : null, run.rootdir].filter(Boolean).join(" · ");
    var ci = run.ci;
    var parts = [el("h1", { text: "ragcheck report" }), el("div", { "class": "meta", text: meta })];
    if (run.incomplete) {
      parts.push(el("div", { "class": "meta incomplete", text: "Incomplete run: " + run.incomplete + "; only the tests that ran are listed." }));
    }
    if (ci) {
      parts.push(el("div", { "class": "meta" }, "GitHub Actions: ", ci.repository || "", ci.sha ? " @ " + ci.sha.slice(0, 10) : "",
        ci.ref ? " (" + ci.ref + ")" : "", " ", ci.run_url ? el("a", { href: ci.run_url, text: "run" }) : null));
    }
    parts.push(el("div", { "class": "chips", id: "summary-chips" }, chips));
    return parts;
  }

  function overview() {
    if (!tests.length) return el("p", { "class": "empty", text: "No ragcheck test ran." });
    var rows = attention.map(function (t) {
      var failing = t.metrics.filter(function (m) { return FAILING[m.status]; });
      var improved = t.metrics.filter(function (m) { return m.status === "improved" && tagOf(m.name) === null; });
      var shown = failing.concat(improved);
      if (!shown.length) shown = qualityMetrics(t);
      var text = shown.map(function (m) {
        var s = m.name + " " + fmt(m.name, cur(m));
        var alone = untested(m) ? ", tolerance alone" : "";
        if (m.status === "regressed" && m.delta !== null) s += " (" + fmtDelta(m.name, m.delta) + alone + ")";
        if (m.status === "improved" && m.delta !== null) s += " (improved " + fmtDelta(m.name, m.delta) + alone + ")";
        if (m.status === "below_floor" || m.status === "above_ceiling") s += " (" + WORDS[m.status] + " " + fmt(m.name, m.bound) + ")";
        return s;
      }).join(" · ") + sharedSuffix(t, shown);
      return el("tr", { "class": "clickable", onclick: function () { location.hash = "test=" + t._index; } },
        el("td", null, badge(t.status)),
        el("td", null, el("a", { href: "#test=" + t._index, "class": "mono" }, breakable(testName(t)))),
        el("td", { text: t.header || t.source }),
        el("td", { text: text }));
    });
    return el("table", { id: "overview" },
      el("thead", null, el("tr", null, el("th", { text: "Status" }), el("th", { text: "Test" }), el("th", { text: "Golden set" }), el("th", { text: "Metrics" }))),
      el("tbody", null, rows));
  }

  // ---- per-test metric chart: baseline vs current bars, threshold marks ------------------
  // Text widths are estimated from the font size (0.62 em per character, a monospace cell is
  // 0.6 em), so labels get the room they need and are never cut at the chart's edge.
  function textWidth(text, size) { return String(text).length * size * 0.62; }

  function metricChart(t) {
    var metrics = qualityMetrics(t);
    if (!metrics.length) return el("p", { "class": "empty", text: "No quality metric in this run." });
    var maxV = 1;
    metrics.forEach(function (m) {
      [cur(m), m.baseline, m.bound].forEach(function (v) { if (v !== null && v > maxV) maxV = v; });
    });
    var labelW = 14 + Math.max.apply(null, metrics.map(function (m) { return textWidth(m.name, 11); }));
    var valueW = 14 + Math.max.apply(null, metrics.map(function (m) { return textWidth(fmt(m.name, cur(m)), 11); }));
    var plotW = 320, rowH = 34, top = 6;
    var W = Math.ceil(labelW + plotW + valueW), H = top + metrics.length * rowH + 16;
    var x = function (v) { return labelW + Math.max(0, v) / maxV * plotW; };
    var chart = sv("svg", { viewBox: "0 0 " + W + " " + H, width: W, "class": "metric-chart", role: "img",
      "aria-label": "baseline and current value per metric", "data-scale": maxV, "data-plot-width": plotW });
    for (var g = 0; g <= 4; g++) {
      var gx = labelW + plotW * g / 4;
      chart.appendChild(sv("line", { "class": "axis", x1: gx, x2: gx, y1: top - 2, y2: H - 14 }));
      chart.appendChild(sv("text", { x: gx, y: H - 2, "text-anchor": "middle", "class": "value-label", text: (maxV * g / 4).toFixed(2) }));
    }
    metrics.forEach(function (m, i) {
      var y = top + i * rowH;
      var row = sv("g", { "class": "metric-row", "data-metric": m.name });
      row.appendChild(sv("text", { x: labelW - 8, y: y + 19, "text-anchor": "end", "class": "label", text: m.name }));
      if (m.baseline !== null) {
        row.appendChild(sv("rect", { "class": "bar bar-baseline", x: labelW, y: y + 3, height: 8, rx: 2,
          width: (x(m.baseline) - labelW).toFixed(2), "data-metric": m.name, "data-value": m.baseline },
          sv("title", { text: m.name + " baseline " + fmt(m.name, m.baseline) })));
      }
      row.appendChild(sv("rect", { "class": "bar bar-current status-" + m.status, x: labelW, y: y + 13, height: 15, rx: 2,
        width: (x(cur(m) || 0) - labelW).toFixed(2), "data-metric": m.name, "data-value": cur(m) },
        sv("title", { text: m.name + " " + fmt(m.name, cur(m)) + (m.baseline !== null ? " (baseline " + fmt(m.name, m.baseline) + ", Δ " + fmtDelta(m.name, m.delta) + ")" : "") })));
      if (m.baseline !== null && m.allowed !== null) {
        var limit = m.higher_is_better ? m.baseline - m.allowed : m.baseline + m.allowed;
        row.appendChild(sv("line", { "class": "tolerance-mark", x1: x(limit), x2: x(limit), y1: y + 1, y2: y + 12,
          "data-metric": m.name, "data-limit": limit }, sv("title", { text: "fails beyond " + fmt(m.name, limit) + " (baseline " + fmtDelta(m.name, m.higher_is_better ? -m.allowed : m.allowed) + ")" })));
      }
      if (m.bound !== null) {
        row.appendChild(sv("line", { "class": "floor-mark", x1: x(m.bound), x2: x(m.bound), y1: y + 1, y2: y + 31,
          "data-metric": m.name, "data-bound": m.bound }, sv("title", { text: (m.bound_kind === "min" ? "floor " : "ceiling ") + fmt(m.name, m.bound) })));
      }
      row.appendChild(sv("text", { x: labelW + plotW + 8, y: y + 25, "class": "value-label", text: fmt(m.name, cur(m)) }));
      chart.appendChild(row);
    });
    var legend = el("div", { "class": "legend", style: "max-width:" + W + "px" },
      el("span", null, el("i", { style: "background:var(--good)" }), "current (pass)"),
      el("span", null, el("i", { style: "background:var(--bad)" }), "current (failing)"),
      el("span", null, el("i", { style: "background:var(--up)" }), "improved"),
      el("span", null, el("i", { style: "background:var(--base)" }), "baseline"),
      el("span", null, el("i", { style: "background:none;border-left:2px dashed var(--ink);border-radius:0" }), "threshold"),
      el("span", null, el("i", { style: "background:none;border-left:2px solid var(--bad);border-radius:0" }), "tolerance"));
    return el("div", { "class": "chart-box" }, chart, legend);
  }

  // What a status cell does not say: the p-value's reading, the confidence interval, notes.
  function metricDetail(m) {
    var parts = [];
    if (m.holm_over > 1 && m.p_value !== null && m.p_value !== undefined) parts.push("p Holm-corrected over " + m.holm_over + " tags");
    if (m.ci) parts.push("95% CI of Δ [" + fmtDelta(m.name, m.ci[0]) + ", " + fmtDelta(m.name, m.ci[1]) + "]");
    if (m.note && !IMPROVED_NOTE.test(m.note)) parts.push(m.note);
    else if (m.basis === "tolerance" && m.detectable !== null && m.detectable !== undefined) parts.push("smallest detectable change " + m.detectable.toFixed(3));
    return parts.join("; ");
  }

  function metricTable(t) {
    var hasBaseline = t.metrics.some(function (m) { return m.baseline !== null; });
    var hasP = t.metrics.some(function (m) { return m.p_value !== null && m.p_value !== undefined; });
    var hasBound = t.metrics.some(function (m) { return m.bound !== null; });
    // A golden set changed since the baseline: the value on the shared cases (what the
    // baseline and Δ are about) and, labelled, the value on all cases (what floors check).
    var counts = sharedCounts(t);
    var head = [el("th", { text: "metric" }), el("th", { "class": "num", text: counts ? "on " + (counts[0] === null ? "" : counts[0] + " ") + "shared" : "value" })];
    if (hasBaseline) head.push(el("th", { "class": "num", text: "baseline" }), el("th", { "class": "num", text: "Δ" }), el("th", { "class": "num", text: "allowed" }));
    if (counts) head.push(el("th", { "class": "num", text: "on all" + (counts[1] === null ? "" : " " + counts[1]) }));
    if (hasP) head.push(el("th", { "class": "num", text: "p" }));
    if (hasBound) head.push(el("th", { "class": "num", text: "threshold" }));
    head.push(el("th", { text: "status" }));
    var notes = [];
    var rows = t.metrics.map(function (m) {
      var compared = m.compared !== null && m.compared !== undefined;
      var hide = held(m);
      var cells = [el("td", { "class": "mono", text: m.name }), el("td", { "class": "num", text: counts && !compared ? "–" : fmt(m.name, cur(m)) })];
      if (hasBaseline) {
        var cls = "num";
        if (m.delta !== null && m.delta !== 0) cls += better(m, m.delta) ? " better" : (m.status === "regressed" ? " worse" : "");
        cells.push(el("td", { "class": "num", text: fmt(m.name, m.baseline) }), el("td", { "class": cls, text: fmtDelta(m.name, m.delta) }),
          el("td", { "class": "num", text: m.baseline !== null ? fmt(m.name, m.allowed) : "–" }));
      }
      if (counts) cells.push(el("td", { "class": "num all-cases", text: fmt(m.name, m.value) }));
      if (hasP) cells.push(el("td", { "class": "num", text: m.p_value === null || m.p_value === undefined || untested(m) ? "–" : pDigits(m.p_value, 3) }));
      if (hasBound) cells.push(el("td", { "class": "num", text: m.bound === null ? "–" : (m.bound_kind === "min" ? "≥ " : "≤ ") + fmt(m.name, m.bound) }));
      var detail = metricDetail(m);
      var status = checkBadge(m);
      if (detail) {
        notes.push({ name: m.name, text: detail });
        status.setAttribute("title", detail);
        status.appendChild(el("sup", { "class": "ref", text: String(notes.length) }));
      }
      cells.push(el("td", { "class": untested(m) ? "status wrap" : "status" }, status));
      return el("tr", { "data-metric": m.name, "data-status": m.status, "class": hide ? "held" : null, hidden: hide }, cells);
    });
    var hiddenRows = rows.filter(function (r) { return r.hidden; });
    if (hiddenRows.length) {
      var shownTags = {}, heldTags = {}, rest = 0;
      t.metrics.forEach(function (m) { if (tagOf(m.name) !== null && !held(m)) shownTags[tagOf(m.name)] = 1; });
      t.metrics.forEach(function (m) { if (held(m)) { if (shownTags[tagOf(m.name)]) rest++; else heldTags[tagOf(m.name)] = 1; } });
      var n = Object.keys(heldTags).length, words = [];
      if (n) words.push(n + (n === 1 ? " tag" : " tags") + " held on every metric");
      if (rest) words.push(rest + " more tag " + (rest === 1 ? "row" : "rows") + " within tolerance");
      var toggle = el("button", { "class": "link held-toggle", type: "button", text: "per tag: " + words.join("; ") + " (show)" });
      toggle.addEventListener("click", function () {
        var open = hiddenRows[0].hidden;
        hiddenRows.forEach(function (r) { r.hidden = !open; });
        toggle.textContent = toggle.textContent.replace(open ? "(show)" : "(hide)", open ? "(hide)" : "(show)");
      });
      rows.push(el("tr", { "class": "held-line" }, el("td", { colspan: head.length }, toggle)));
    }
    var table = el("table", { "class": "metrics" }, el("thead", null, el("tr", null, head)), el("tbody", null, rows));
    if (!notes.length) return [table];
    return [table, el("ol", { "class": "metric-notes" }, notes.map(function (n) {
      return el("li", { "data-metric": n.name }, el("code", { text: n.name }), " " + n.text);
    }))];
  }

  // Metric means per tag, when the test gates each tag on its own.
  function perTagTable(t) {
    var tags = Object.keys(t.per_tag || {}).sort();
    if (!tags.length) return null;
    var names = [];
    tags.forEach(function (tag) {
      Object.keys(t.per_tag[tag] || {}).forEach(function (n) { if (names.indexOf(n) < 0) names.push(n); });
    });
    var head = [el("th", { text: "tag" })].concat(names.map(function (n) { return el("th", { "class": "num mono", text: n }); }));
    var rows = tags.map(function (tag) {
      return el("tr", { "data-tag": tag }, [el("td", { "class": "mono", text: tag })].concat(names.map(function (n) {
        var v = (t.per_tag[tag] || {})[n];
        return el("td", { "class": "num", text: fmt(n, v === undefined ? null : v) });
      })));
    });
    return el("div", { "class": "per-tag" }, el("h3", { text: "Per tag" }),
      el("div", { "class": "scroll-x" }, el("table", { "class": "per-tag-table" }, el("thead", null, el("tr", null, head)), el("tbody", null, rows))));
  }

  // Cases added, removed or edited since the baseline: compared on the shared cases only.
  function caseDiff(t) {
    var diff = t.baseline && t.baseline.case_diff;
    if (!diff) return null;
    var parts = [];
    ["added", "removed", "edited"].forEach(function (kind) {
      var n = diff[kind] || 0;
      if (!n) return;
      var ids = (diff[kind + "_ids"] || []).slice(0, 5);
      var more = n > ids.length ? ", …" : "";
      parts.push(n + " " + kind + (ids.length ? " (" + ids.join(", ") + more + ")" : ""));
    });
    if (!parts.length) return null;
    return el("div", { "class": "note case-diff" }, "Golden set changed since the baseline: " + parts.join(" · ") +
      ". The comparison uses the cases both share.");
  }

  // ---- per-case distribution and the cases that moved most ------------------------------
  function caseValue(c, name) { var v = (c.values || {})[name]; return v === undefined ? null : v; }
  function caseBaseline(c, name) { var b = c.baseline_values; return b && b[name] !== undefined ? b[name] : null; }

  // A capped test (more cases than the page holds) brings its histogram counted over every case.
  function binned(t, name) {
    var given = t.distribution && t.distribution[name];
    if (given) return { maxV: given.max, counts: given.counts, base: given.baseline || given.counts.map(function () { return 0; }), withBase: !!given.baseline };
    var bins = 10, counts = [], base = [];
    for (var i = 0; i < bins; i++) { counts.push(0); base.push(0); }
    var maxV = 1, withBase = false;
    t.cases.forEach(function (c) {
      var v = caseValue(c, name); if (v !== null && v > maxV) maxV = v;
      var b = caseBaseline(c, name); if (b !== null && b > maxV) maxV = b;
    });
    function bin(v) { return Math.min(bins - 1, Math.max(0, Math.floor(v / maxV * bins))); }
    t.cases.forEach(function (c) {
      var v = caseValue(c, name); if (v !== null) counts[bin(v)]++;
      var b = caseBaseline(c, name); if (b !== null) { base[bin(b)]++; withBase = true; }
    });
    return { maxV: maxV, counts: counts, base: base, withBase: withBase };
  }

  function histogram(t, name) {
    var h0 = binned(t, name), bins = h0.counts.length, counts = h0.counts, base = h0.base;
    var maxV = h0.maxV, withBase = h0.withBase;
    var top = Math.max.apply(null, counts.concat(base).concat([1]));
    var W = 520, H = 170, left = 34, bottom = 22, plotW = W - left - 16, plotH = H - bottom - 10;
    var bw = plotW / bins;
    var chart = sv("svg", { viewBox: "0 0 " + W + " " + H, "class": "hist", "data-metric": name, role: "img",
      "aria-label": "number of cases per value of " + name });
    for (var g = 0; g <= 2; g++) {
      var gy = 10 + plotH - plotH * g / 2;
      chart.appendChild(sv("line", { "class": "axis", x1: left, x2: left + plotW, y1: gy, y2: gy }));
      chart.appendChild(sv("text", { x: left - 6, y: gy + 4, "text-anchor": "end", "class": "value-label", text: Math.round(top * g / 2) }));
    }
    for (var k = 0; k < bins; k++) {
      var lo = maxV * k / bins, hi = maxV * (k + 1) / bins;
      var h = counts[k] / top * plotH;
      chart.appendChild(sv("rect", { "class": "hist-bar hist-current", x: (left + k * bw + 3).toFixed(2), width: (bw - 6).toFixed(2),
        y: (10 + plotH - h).toFixed(2), height: h.toFixed(2), "data-bin": k, "data-count": counts[k] },
        sv("title", { text: counts[k] + " case(s) with " + name + " in [" + lo.toFixed(2) + ", " + hi.toFixed(2) + (k === bins - 1 ? "]" : ")") })));
      if (withBase) {
        var hb = base[k] / top * plotH;
        chart.appendChild(sv("rect", { "class": "hist-bar hist-baseline", x: (left + k * bw + 1).toFixed(2), width: (bw - 2).toFixed(2),
          y: (10 + plotH - hb).toFixed(2), height: hb.toFixed(2), "data-bin": k, "data-count": base[k] },
          sv("title", { text: "baseline: " + base[k] + " case(s)" })));
      }
      if (k % 2 === 0) chart.appendChild(sv("text", { x: left + k * bw, y: H - 6, "text-anchor": "middle", "class": "value-label", text: lo.toFixed(1) }));
    }
    chart.appendChild(sv("text", { x: left + bins * bw, y: H - 6, "text-anchor": "middle", "class": "value-label", text: maxV.toFixed(1) }));
    var legend = el("div", { "class": "legend" }, el("span", null, el("i", { style: "background:var(--current)" }), "cases now"),
      withBase ? el("span", null, el("i", { style: "background:none;border:1.5px dashed var(--base)" }), "cases in the baseline") : null);
    return el("div", null, chart, legend);
  }

  function movers(t, name) {
    var metric = t.metrics.filter(function (m) { return m.name === name; })[0] || { higher_is_better: true };
    var sign = metric.higher_is_better ? 1 : -1;
    var rows = [], title;
    var withBase = t.cases.some(function (c) { return caseBaseline(c, name) !== null; });
    var changes = (t.case_changes || []).filter(function (c) { return c.metric === name; });
    if (withBase) {
      title = "Most regressed cases (" + name + ")";
      t.cases.forEach(function (c) {
        var v = caseValue(c, name), b = caseBaseline(c, name);
        if (v !== null && b !== null && (v - b) * sign < 0) rows.push({ c: c, before: b, after: v, delta: v - b });
      });
      rows.sort(function (a, b) { return (a.delta - b.delta) * sign || (a.c.id < b.c.id ? -1 : 1); });
    } else if (changes.length) {
      title = "Most regressed cases (" + name + ")";
      var byId = {};
      t.cases.forEach(function (c) { byId[c.id] = c; });
      changes.forEach(function (ch) {
        rows.push({ c: byId[ch.id] || { id: ch.id, query: ch.query }, before: ch.before, after: ch.after, delta: ch.after - ch.before, explain: ch.explain });
      });
    } else {
      title = "Lowest-scoring cases (" + name + ")";
      t.cases.forEach(function (c) {
        var v = caseValue(c, name);
        if (v !== null) rows.push({ c: c, before: null, after: v, delta: null });
      });
      rows.sort(function (a, b) { return (a.after - b.after) * sign || (a.c.id < b.c.id ? -1 : 1); });
    }
    rows = rows.slice(0, 10);
    var maxD = Math.max.apply(null, rows.map(function (r) { return Math.abs(r.delta || 0); }).concat([1e-9]));
    var body = rows.map(function (r) {
      var deltaCell = el("td", { "class": "num" });
      if (r.delta !== null) {
        var w = Math.abs(r.delta) / maxD * 60;
        deltaCell.appendChild(el("span", { text: fmtDelta(name, r.delta) + " " }));
        var s = sv("svg", { width: 62, height: 10, "class": "delta" },
          sv("rect", { "class": "delta-bar " + ((r.delta * sign) < 0 ? "neg" : "pos"), x: 62 - w, y: 1, width: w.toFixed(2), height: 8, rx: 1 }));
        deltaCell.appendChild(s);
      }
      var explain = r.explain || explanation(t, r.c.id);
      var cells = [caseIdCell(r.c.id), el("td", null, clipped(r.c.query || ""),
        explain.length ? el("div", { "class": "meta explain", text: explain.join(" · ") }) : null)];
      if (r.delta !== null) cells.push(el("td", { "class": "num", text: fmt(name, r.before) }));
      cells.push(el("td", { "class": "num", text: fmt(name, r.after) }));
      if (r.delta !== null) cells.push(deltaCell);
      return el("tr", { "class": "clickable mover", "data-case": r.c.id, onclick: function () { openCase(t, r.c.id, true); } }, cells);
    });
    var compared = rows.some(function (r) { return r.delta !== null; });
    var headCells = [el("th", { text: "case" }), el("th", { text: "query" })];
    if (compared) headCells.push(el("th", { "class": "num", text: "before" }));
    headCells.push(el("th", { "class": "num", text: compared ? "now" : "value" }));
    if (compared) headCells.push(el("th", { "class": "num", text: "Δ" }));
    var table = rows.length
      ? el("table", { "class": "movers" }, el("thead", null, el("tr", null, headCells)), el("tbody", null, body))
      : el("p", { "class": "empty", text: "No case got worse." });
    return el("div", null, el("h3", { text: title }), table);
  }

  // The baseline comparison's account of one case: how its relevant documents moved.
  function changeOf(t, caseId) {
    return (t.case_changes || []).filter(function (ch) {
      return String(ch.id) === String(caseId) && ((ch.explain || []).length || (ch.baseline_hits || []).length);
    })[0] || null;
  }
  function explanation(t, caseId) { var ch = changeOf(t, caseId); return (ch && ch.explain) || []; }

  function defaultMetric(t) {
    var q = qualityMetrics(t);
    // The metric whose cases the baseline comparison singled out, else the first failing one.
    if (t.case_changes && t.case_changes.length) return t.case_changes[0].metric;
    var bad = q.filter(function (m) { return FAILING[m.status]; });
    if (bad.length) return bad[0].name;
    return q.length ? q[0].name : null;
  }

  function capNotice(t) {
    if (t.cases_shown === undefined || t.cases_shown === null) return null;
    return el("div", { "class": "note cap-notice" }, "This page holds " + t.cases_shown + " of the " + t.n_cases +
      " cases in full: the most regressed and lowest-scoring per metric, and errors (the histogram counts every case). " +
      (t.n_cases - t.cases_shown) + " cases are left out; the JSON report (--ragcheck-report=report.json) has them all.");
  }

  function casesTable(t) {
    var names = qualityMetrics(t).map(function (m) { return m.name; });
    var filter = el("input", { type: "search", placeholder: "filter by id or query", "aria-label": "filter cases" });
    var rows = t.cases.map(function (c) {
      var cells = [caseIdCell(c.id), el("td", null, clipped(c.query))];
      names.forEach(function (n) { cells.push(el("td", { "class": "num", text: fmt(n, caseValue(c, n)) })); });
      cells.push(el("td", { "class": "num", text: c.latency_ms === null ? "–" : c.latency_ms.toFixed(1) }));
      cells.push(el("td", null, c.status === "ok" ? "" : el("span", { "class": "badge " + (c.status === "error" ? "s-error" : "s-new"), text: c.status })));
      return el("tr", { "class": "clickable case-row", "data-case": c.id, "data-search": (c.id + " " + c.query).toLowerCase(),
        onclick: function () { openCase(t, c.id, true); } }, cells);
    });
    filter.addEventListener("input", function () {
      var q = filter.value.toLowerCase();
      rows.forEach(function (r) { r.style.display = r.getAttribute("data-search").indexOf(q) >= 0 ? "" : "none"; });
    });
    var head = [el("th", { text: "case" }), el("th", { text: "query" })];
    names.forEach(function (n) { head.push(el("th", { "class": "num mono", text: n })); });
    head.push(el("th", { "class": "num", text: "ms" }), el("th", { text: "" }));
    return el("details", { "class": "all-cases" }, el("summary", { text: (t.cases_shown === undefined ? "All " : "Shown: ") + t.cases.length + " cases" }),
      el("div", { "class": "toolbar" }, filter),
      el("div", { "class": "scroll" }, el("table", null, el("thead", null, el("tr", null, head)), el("tbody", null, rows))));
  }

  // ---- drill-down: one case's hits, relevance and judge reasons --------------------------
  function judgeFor(c, rankNo) {
    var out = [];
    Object.keys(c.judge || {}).forEach(function (metric) {
      (c.judge[metric] || []).forEach(function (item, i) {
        if (item && (item.claim !== undefined || item.answerable !== undefined)) return;
        var r = item && item.rank !== undefined ? item.rank : (item && item.index !== undefined ? item.index + 1 : i + 1);
        if (r === rankNo) out.push({ metric: metric, item: item });
      });
    });
    return out;
  }
  function verdictText(item) {
    if (item.verdict !== undefined) return String(item.verdict);
    if (item.grade !== undefined) return "grade " + item.grade;
    if (item.score !== undefined && item.score !== null) return "score " + Number(item.score).toFixed(2);
    if (item.error) return "error";
    return "";
  }
  function claims(c) {
    var out = [];
    Object.keys(c.judge || {}).forEach(function (metric) {
      (c.judge[metric] || []).forEach(function (item) {
        if (item && item.claim !== undefined) out.push({ metric: metric, item: item });
        if (item && Array.isArray(item.claims)) item.claims.forEach(function (cl) { out.push({ metric: metric, item: cl }); });
      });
    });
    return out;
  }

  // A pipeline's answer, and its claims with the judge's quotes as the plugin checked them.
  function answerParts(c) {
    if (c.answer === undefined || c.answer === null) return [];
    var out = [el("h3", { text: "Answer" }), el("div", { "class": "hit-text answer", text: c.answer })];
    // Questions the collection cannot answer, refusals, and the CRAG grade with its reason.
    if (c.answerable === false) out.push(el("div", { "class": "meta", text: c.refusal
      ? "Unanswerable here, and the answer declines (" + c.refusal + ")"
      : "Unanswerable here, but the pipeline answered: " + c.answer }));
    else if (c.refusal) out.push(el("div", { "class": "meta", text: "Refusal (" + c.refusal + ") of a question the collection answers" }));
    var graded = {};
    Object.keys(c.judge || {}).forEach(function (metric) {
      (c.judge[metric] || []).forEach(function (item) {
        if (!item || item.answerable === undefined) return;
        var line = "grade " + item.grade + (item.judge_grade && item.judge_grade !== item.grade ? " (the judge said " + item.judge_grade + ")" : "") +
          (item.refusal ? " — refusal: " + item.refusal + ", no judge call" : item.reason ? " — judge: " + item.reason : "");
        graded[line] = (graded[line] || []).concat([metric]);
      });
    });
    Object.keys(graded).forEach(function (line) {
      out.push(el("div", { "class": "grade" }, el("span", { "class": "mono", text: graded[line].join(", ") + ": " }), line));
    });
    var own = claims(c).filter(function (x) { return x.item.supported !== undefined; });
    if (own.length) {
      out.push(el("h3", { text: "Answer claims (faithfulness)" }));
      out.push(el("ul", { "class": "claims" }, own.map(function (x) {
        var ok = x.item.supported === true;
        var why = ok ? " — quote found: “" + x.item.quote + "”"
          : x.item.judge_supported ? " — the judge's quote “" + x.item.quote + "” is not in the contexts" : " — not supported by the contexts";
        return el("li", { "class": ok ? "attributed" : "unattributed" }, (ok ? "✓ " : "✗ ") + (x.item.claim || ""),
          el("span", { "class": "meta", text: why }));
      })));
    }
    return out;
  }

  function renderCase(t, c) {
    var names = qualityMetrics(t).map(function (m) { return m.name; });  // no per-tag rows: a case has no values of those
    var facts = [el("span", { "class": "badge " + (c.status === "error" ? "s-error" : c.status === "ok" ? "s-pass" : "s-new"), text: c.status === "ok" ? "evaluated" : c.status }),
      " " + c.hits.length + " hits · " + c.n_relevant + " relevant" + (c.mode === "texts" ? " spans" : "") +
      (c.latency_ms !== null ? " · " + c.latency_ms.toFixed(1) + " ms" : "") +
      (c.duplicates ? " · " + c.duplicates + " duplicate id(s) dropped" : "") +
      (c.tags && c.tags.length ? " · tags: " + c.tags.join(", ") : "")];
    var hasBase = !!c.baseline_values;
    var valueHead = [el("th", { text: "metric" }), el("th", { "class": "num", text: "value" })];
    if (hasBase) valueHead.push(el("th", { "class": "num", text: "baseline" }), el("th", { "class": "num", text: "Δ" }));
    var values = el("table", { "class": "case-values" }, el("thead", null, el("tr", null, valueHead)),
      el("tbody", null, names.map(function (n) {
        var v = caseValue(c, n), b = caseBaseline(c, n);
        var d = v !== null && b !== null ? v - b : null;
        var row = [el("td", { "class": "mono", text: n }), el("td", { "class": "num", text: fmt(n, v) })];
        if (hasBase) row.push(el("td", { "class": "num", text: fmt(n, b) }), el("td", { "class": "num" + (d < 0 ? " worse" : d > 0 ? " better" : ""), text: fmtDelta(n, d) }));
        return el("tr", { "data-metric": n }, row);
      })));
    var parts = [
      el("div", { "class": "drill-head" }, el("div", null, el("span", { "class": "meta", text: "Case " }), el("code", { "class": "case-id", text: c.id })),
        el("button", { "class": "close", title: "close", "aria-label": "close", text: "×", onclick: function () { history.replaceState(null, "", "#test=" + t._index); closeCase(t); } })),
      el("div", { "class": "query", text: c.query }),
      el("div", { "class": "meta" }, facts),
      values
    ];
    if (c.error) parts.push(el("div", { "class": "problem", text: c.error + (c.traceback ? "\n\n" + c.traceback : "") }));
    (c.judge_errors || []).forEach(function (e) { parts.push(el("div", { "class": "problem", text: "judge: " + e })); });
    var hits = c.hits.map(function (h) {
      var head = [el("code", { text: h.id })];
      head.push(h.relevant
        ? el("span", { "class": "badge s-pass rel-mark", text: "✓ relevant" + (c.mode === "texts" ? "" : " (grade " + h.grade + ")") })
        : el("span", { "class": "badge", style: "background:#eef0f3;color:#6b7480", text: "not relevant" }));
      if (h.score !== null) head.push(el("span", { "class": "meta", text: "score " + Number(h.score).toPrecision(4) }));
      if (h.spans && h.spans.length) head.push(el("span", { "class": "meta", text: "finds span " + h.spans.map(function (s) { return "#" + (s + 1); }).join(", ") }));
      var body = [el("div", { "class": "hit-head" }, head)];
      if (h.text) body.push(el("div", { "class": "hit-text", text: h.text }));
      judgeFor(c, h.rank).forEach(function (j) {
        var v = verdictText(j.item);
        var cls = "verdict" + (v === "yes" ? " yes" : v === "no" ? " no" : "");
        body.push(el("div", { "class": cls, "data-metric": j.metric }, el("strong", { text: j.metric + ": " + v }),
          j.item.reason ? " — " + j.item.reason : "", j.item.error ? " — " + j.item.error : ""));
      });
      return el("li", { "class": "hit" + (h.relevant ? " relevant" : ""), "data-rank": h.rank, "data-id": h.id },
        el("div", { "class": "rank", text: "#" + h.rank }), el("div", null, body));
    });
    var current = hits.length ? el("ol", { "class": "hits" }, hits) : el("p", { "class": "empty", text: "The retriever returned nothing." });
    var change = changeOf(t, c.id);
    if (change && change.explain && change.explain.length) {
      parts.push(el("h3", { text: "What moved" }));
      parts.push(el("ul", { "class": "explain-list" }, change.explain.map(function (e) { return el("li", { text: e }); })));
    }
    if (change && change.baseline_hits && change.baseline_hits.length) {
      parts.push(el("div", { "class": "rankings" },
        el("div", { "class": "ranking-now" }, el("h3", { text: "Retrieved hits now" }), current),
        el("div", { "class": "ranking-baseline" }, el("h3", { text: "In the baseline" }), baselineRanking(c, change.baseline_hits))));
    } else {
      parts.push(el("h3", { text: "Retrieved hits" }));
      parts.push(current);
    }
    if (c.hits_dropped) parts.push(el("p", { "class": "meta", text: "… " + c.hits_dropped + " more hits not stored" }));
    answerParts(c).forEach(function (p) { parts.push(p); });
    var cl = claims(c).filter(function (x) { return x.item.supported === undefined; });
    if (cl.length) {
      parts.push(el("h3", { text: "Reference answer claims" }));
      parts.push(el("ul", { "class": "claims" }, cl.map(function (x) {
        var ok = x.item.attributed === true || x.item.covered === true;
        return el("li", { "class": ok ? "attributed" : "unattributed" }, (ok ? "✓ " : "✗ ") + (x.item.claim || ""),
          x.item.covered !== undefined ? el("span", { "class": "meta", text: ok ? " — covered by the answer" : " — missing from the answer" }) : null,
          x.item.reason ? el("span", { "class": "meta", text: " — " + x.item.reason }) : null);
      })));
    }
    return parts;
  }

  // The baseline's ranking of a case, each id with where it is now.
  function baselineRanking(c, ids) {
    if (!ids.length) return el("p", { "class": "empty", text: "The baseline retrieved nothing." });
    var now = {};
    c.hits.forEach(function (h) { now[String(h.id)] = h; });
    return el("ol", { "class": "baseline-hits" }, ids.map(function (id, i) {
      var h = now[String(id)];
      var where = h ? (h.rank === i + 1 ? "same rank" : "now #" + h.rank) : "gone";
      return el("li", { "class": "baseline-hit" + (h && h.relevant ? " relevant" : ""), "data-rank": i + 1, "data-id": id },
        el("span", { "class": "rank", text: "#" + (i + 1) }), el("code", { text: id }),
        el("span", { "class": "meta moved" + (where === "gone" ? " worse" : ""), text: where }));
    }));
  }

  var cards = {};
  function openCase(t, caseId, setHash, initial) {
    var card = cards[t._index];
    var c = t.cases.filter(function (x) { return String(x.id) === String(caseId); })[0];
    if (card && !c) return missingCase(t, caseId);
    if (!card || !c) return false;
    if (setHash) history.replaceState(null, "", "#case=" + t._index + "/" + encodeURIComponent(c.id));
    var drill = card.drill;
    while (drill.firstChild) drill.removeChild(drill.firstChild);
    append(drill, renderCase(t, c));
    drill.hidden = false;
    drill.setAttribute("data-case", c.id);
    Array.prototype.forEach.call(card.node.querySelectorAll("tr[data-case]"), function (r) {
      r.classList.toggle("selected", r.getAttribute("data-case") === String(c.id));
    });
    drill.scrollIntoView({ block: initial ? "start" : "nearest" });
    return true;
  }
  // A link to a case this page does not hold (a capped test keeps the cases that matter
  // most): say so where the case would be, never leave the reader on an unrelated spot.
  function missingCase(t, caseId) {
    var drill = cards[t._index].drill;
    while (drill.firstChild) drill.removeChild(drill.firstChild);
    drill.appendChild(el("p", { "class": "note missing-case", text: "Case " + caseId + " is not on this page" +
      (t.cases_shown !== undefined && t.cases_shown !== null ? " (it holds " + t.cases_shown + " of the " + t.n_cases + " cases)" : "") +
      "; the JSON report (--ragcheck-report=report.json) has every case." }));
    drill.hidden = false;
    drill.removeAttribute("data-case");
    drill.scrollIntoView({ block: "start" });
    return true;
  }
  function closeCase(t) {
    var card = cards[t._index];
    card.drill.hidden = true;
    card.drill.removeAttribute("data-case");
  }

  function testCard(t) {
    var failing = !!FAILING[t.status];
    var node = el("section", { "class": "card test" + (failing ? " failing" : t.status === "improved" ? " improved" : ""),
      id: "test-" + t._index, "data-nodeid": t.nodeid, "data-status": t.status });
    node.appendChild(el("div", { "class": "card-head" }, badge(t.status), el("h2", { text: testName(t) })));
    var sub = [t.header || t.source];
    if (t.judge && (t.judge.calls !== undefined || t.judge.cached !== undefined)) sub.push("judge: " + (t.judge.calls || 0) + " calls, " + (t.judge.cached || 0) + " cached");
    node.appendChild(el("p", { "class": "sub", text: sub.filter(Boolean).join(" · ") }));
    (t.problems || []).forEach(function (p) { node.appendChild(el("div", { "class": "problem", text: p })); });
    // An improvement is in the metric table; its "re-record the baseline" note would be wrong
    // advice on a test that failed, and is said once at the top of the page for the others.
    (t.notes || []).forEach(function (n) {
      if (!IMPROVED_NOTE.test(n)) node.appendChild(el("div", { "class": "note", text: n }));
    });
    append(node, caseDiff(t));
    var latency = t.metrics.filter(function (m) { return m.kind === "latency"; });
    var right = metricTable(t);
    if (latency.length) {
      right.push(el("p", { "class": "meta latency" }, "Latency: ", latency.map(function (m) {
        return m.name.replace("latency_", "").replace("_ms", "") + " " + fmt(m.name, m.value) + " ms" + (FAILING[m.status] ? " (" + WORDS[m.status] + ")" : "");
      }).join(" · ")));
    }
    node.appendChild(el("h3", { text: "Baseline vs current" }));
    node.appendChild(el("div", { "class": "flow metric-flow" }, metricChart(t), el("div", { "class": "metric-box" }, right)));
    append(node, perTagTable(t));
    var metric = defaultMetric(t);
    if (metric && t.cases.length) {
      var distHolder = el("div", { "class": "dist" });
      var moversHolder = el("div", { "class": "movers-holder" });
      var select = el("select", { "aria-label": "metric for the case distribution", "class": "metric-select" },
        qualityMetrics(t).map(function (m) { return el("option", { value: m.name, text: m.name, selected: m.name === metric }); }));
      var draw = function () {
        var name = select.value;
        while (distHolder.firstChild) distHolder.removeChild(distHolder.firstChild);
        while (moversHolder.firstChild) moversHolder.removeChild(moversHolder.firstChild);
        distHolder.appendChild(histogram(t, name));
        moversHolder.appendChild(movers(t, name));
        var sel = node.querySelector(".drill[data-case]");
        if (sel) Array.prototype.forEach.call(node.querySelectorAll("tr[data-case]"), function (r) {
          r.classList.toggle("selected", r.getAttribute("data-case") === sel.getAttribute("data-case"));
        });
      };
      select.addEventListener("change", draw);
      node.appendChild(el("h3", { text: "Cases" }));
      node.appendChild(el("div", { "class": "toolbar" }, el("span", { "class": "meta", text: "Distribution of per-case values for" }), select));
      node.appendChild(el("div", { "class": "flow case-flow" }, distHolder, moversHolder));
      draw();
      append(node, capNotice(t));
      node.appendChild(casesTable(t));
    }
    var drill = el("div", { "class": "drill", hidden: true, "aria-label": "case details" });
    node.appendChild(drill);
    cards[t._index] = { node: node, drill: drill };
    return node;
  }

  // A link edited by hand may hold a "%" that is no escape: read it as typed.
  function decoded(text) {
    try { return decodeURIComponent(text); } catch (e) { return text; }
  }
  function route(initial) {
    var hash = decoded(location.hash.slice(1));
    var m = /^case=(\d+)\/(.*)$/.exec(location.hash.slice(1));
    if (m) {
      var t = tests[Number(m[1])];
      if (t) { openCase(t, decoded(m[2]), false, initial === true); }
      return;
    }
    var n = /^test=(\d+)$/.exec(hash);
    if (n && cards[Number(n[1])]) cards[Number(n[1])].node.scrollIntoView();
  }

  // ---- ragcheck.compare(...): systems side by side ------------------------------------------
  var MARKS = { win: "▲", loss: "▼" };
  function pText(p) { return p === null || p === undefined ? "–" : p < 0.001 ? "<0.001" : pDigits(p, 2); }
  function comparisonCard(c) {
    var head = [el("th", { text: "metric" })].concat(c.systems.map(function (s) {
      return el("th", { "class": "num", text: s === c.reference ? s + " (reference)" : s });
    }));
    var rows = c.metrics.map(function (m) {
      var bySystem = {};
      m.rows.forEach(function (r) { bySystem[r.system] = r; });
      return el("tr", { "data-metric": m.name }, [el("td", { "class": "mono", text: m.name })].concat(c.systems.map(function (s) {
        var r = bySystem[s];
        if (s === c.reference) return el("td", { "class": "num", text: fmt(m.name, r.value) });
        var cls = "num" + (r.marker === "win" ? " cmp-win" : r.marker === "loss" ? " cmp-loss" : "");
        return el("td", { "class": cls, "data-system": s, title: "p (Holm) " + pText(r.p_holm) + " · raw p " + pText(r.p_value) + " · " + r.n + " paired cases" },
          fmt(m.name, r.value) + (MARKS[r.marker] ? " " + MARKS[r.marker] : ""),
          el("span", { "class": "meta", text: " " + fmtDelta(m.name, r.delta) + " · p " + pText(r.p_holm) + " · " + r.wins + "/" + r.ties + "/" + r.losses }));
      })));
    });
    var level = c.significance === null ? "means only (significance=None)" :
      "▲/▼ significantly better/worse than " + c.reference + " (p ≤ " + c.significance + ", " + (c.test || "one-sided paired sign-flip test, Holm-corrected across systems") + "); Δ, p and wins/ties/losses per case against " + c.reference;
    return el("section", { "class": "card comparison", "data-nodeid": c.nodeid },
      el("div", { "class": "card-head" }, el("h2", { "class": "mono" }, breakable(c.nodeid))),
      el("p", { "class": "meta", text: "Compared on " + c.source + " (" + c.n_cases + (c.n_cases === 1 ? " case" : " cases") + ", k=" + c.k + ")" }),
      el("div", { "class": "scroll-x" }, el("table", { "class": "metrics comparison-table" }, el("thead", null, el("tr", null, head)), el("tbody", null, rows))),
      el("p", { "class": "meta", text: level }));
  }

  // ---- --ragcheck-history: each metric's trend over the recorded runs ------------------------
  function sparkline(points, baseline, name) {
    var W = 180, H = 36, P = 4;
    var values = points.map(function (p) { return p.value; }).filter(function (v) { return v !== null && v !== undefined; });
    var all = values.concat(baseline === null || baseline === undefined ? [] : [baseline]);
    var lo = Math.min.apply(null, all), hi = Math.max.apply(null, all);
    if (hi - lo < 1e-9) { lo -= 0.5; hi += 0.5; }
    var x = function (i) { return P + (points.length < 2 ? (W - 2 * P) / 2 : i * (W - 2 * P) / (points.length - 1)); };
    var y = function (v) { return H - P - (v - lo) / (hi - lo) * (H - 2 * P); };
    var path = [];
    points.forEach(function (p, i) { if (p.value !== null && p.value !== undefined) path.push(x(i).toFixed(1) + "," + y(p.value).toFixed(1)); });
    var svg = sv("svg", { "class": "sparkline", width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img", "data-metric": name,
      "aria-label": name + " over " + points.length + " runs" });
    if (baseline !== null && baseline !== undefined) {
      svg.appendChild(sv("line", { "class": "trend-baseline", x1: P, x2: W - P, y1: y(baseline).toFixed(1), y2: y(baseline).toFixed(1) },
        sv("title", { text: "baseline " + fmt(name, baseline) })));
    }
    svg.appendChild(sv("polyline", { "class": "trend-line", points: path.join(" "), fill: "none" }));
    points.forEach(function (p, i) {
      if (p.value === null || p.value === undefined) return;
      svg.appendChild(sv("circle", { "class": i === points.length - 1 ? "trend-dot last" : "trend-dot", cx: x(i).toFixed(1), cy: y(p.value).toFixed(1), r: i === points.length - 1 ? 2.8 : 1.6 },
        sv("title", { text: fmt(name, p.value) + " · " + (p.timestamp || "") + (p.commit ? " · " + p.commit.slice(0, 8) : "") + (p.branch ? " (" + p.branch + ")" : "") })));
    });
    return svg;
  }
  function trendCard(history) {
    var blocks = history.tests.map(function (h) {
      var rows = h.metrics.map(function (name) {
        var points = h.runs.map(function (r) { var v = r.metrics[name]; return { value: v === undefined ? null : v, timestamp: r.timestamp, commit: r.commit, branch: r.branch }; });
        var last = points.length ? points[points.length - 1].value : null;
        var base = h.baseline ? h.baseline[name] : null;
        return el("tr", { "data-metric": name },
          el("td", { "class": "mono", text: name }),
          el("td", null, sparkline(points, base === undefined ? null : base, name)),
          el("td", { "class": "num", text: fmt(name, last) }),
          el("td", { "class": "num meta", text: base === null || base === undefined ? "–" : "baseline " + fmt(name, base) }));
      });
      return el("div", { "class": "trend", "data-nodeid": h.nodeid },
        el("h3", { "class": "mono" }, breakable(h.nodeid + (h.call ? " [call " + (h.call + 1) + "]" : ""))),
        el("p", { "class": "meta", text: h.runs.length + " run(s)" + (h.runs.length ? ", " + h.runs[0].timestamp + " → " + h.runs[h.runs.length - 1].timestamp : "") }),
        el("table", { "class": "metrics trend-table" }, el("tbody", null, rows)));
    });
    return el("section", { "class": "card history" },
      el("div", { "class": "card-head" }, el("h2", { text: "Trend" })),
      el("p", { "class": "meta", text: "From " + history.file + ": " + history.lines + " line(s); dashed: the stored baseline." }),
      blocks);
  }

  var app = document.getElementById("app");
  append(app, header());
  // Re-recording is the advice only for tests that passed: on a failing one it would accept
  // the failure too.
  // Last, below every regression, and naming exactly the tests to re-record.
  var improved = tests.filter(function (t) { return t.status === "improved"; });
  if (tests.length || !(data.comparisons || []).length) app.appendChild(el("section", { "class": "card overview" }, overview()));
  attention.forEach(function (t) { app.appendChild(testCard(t)); });
  if (data.history && data.history.tests.length) app.appendChild(trendCard(data.history));
  (data.comparisons || []).forEach(function (c) { app.appendChild(comparisonCard(c)); });
  if (improved.length) {
    var seen = {};
    var ids = improved.map(function (t) { return t.nodeid; }).filter(function (id) {
      if (seen[id]) return false;
      seen[id] = true;
      return true;
    });
    var command = "pytest " + ids.map(function (id) { return '"' + id + '"'; }).join(" ") +
      " --snapshot-update";
    app.appendChild(el("div", { "class": "hint" }, "Improved beyond tolerance; to record it: ",
      el("code", { text: command })));
  }
  app.appendChild(el("footer", { text: "Generated by " + ((data.run || {}).generator || "pytest-ragcheck") + " · report schema v" + data.schema_version }));
  window.addEventListener("hashchange", route);
  route(true);
  // A link opened directly: route again once the page is laid out (the browser's own
  // handling of the fragment and late layout must not leave the reader elsewhere).
  if (document.readyState !== "complete") window.addEventListener("load", function () { route(true); });
  document.documentElement.setAttribute("data-rendered", "true");
})();
