/* svgeval report gallery: filters, sorting and pages over window.SVGEVAL (data/samples.js).
 * Every text that comes from a run is set with textContent, never parsed as HTML; renders are
 * PNG files. Long texts are loaded per chunk (data/details-NNNN.js) when a card is opened. */
(function () {
  "use strict";
  var data = window.SVGEVAL;
  if (!data) { return; }
  var meta = data.meta;
  var samples = data.samples;
  var byName = {};
  meta.metrics.forEach(function (m) { byName[m.name] = m; });
  var state = { group: "", outcome: "", sort: "", limit: 0, page: 0, pageSize: meta.pageSize };
  var details = {};
  var waiting = {};

  function $(id) { return document.getElementById(id); }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function addOption(select, value, label) {
    var opt = el("option", null, label);
    opt.value = value;
    select.appendChild(opt);
  }

  function fmt(v) {
    if (v === null || v === undefined) { return "n/a"; }
    var a = Math.abs(v);
    return (v === 0 || (a >= 1e-3 && a < 1e5)) ? v.toFixed(4) : v.toExponential(3);
  }

  function count(pred) { return samples.filter(pred).length; }

  function setupControls() {
    var group = $("f-group");
    addOption(group, "", "all groups (" + samples.length + ")");
    meta.groups.forEach(function (g) {
      addOption(group, g, g + " (" + count(function (s) { return s.group === g; }) + ")");
    });
    var outcome = $("f-outcome");
    var failed = count(function (s) { return s.kind !== null; });
    addOption(outcome, "", "all outcomes");
    addOption(outcome, "valid", "valid (" + (samples.length - failed) + ")");
    addOption(outcome, "failed", "any failure (" + failed + ")");
    meta.kinds.forEach(function (k) { addOption(outcome, "kind:" + k[0], k[0] + " (" + k[1] + ")"); });
    var judgeFailed = count(function (s) { return s.judge !== undefined; });
    if (judgeFailed) {
      addOption(outcome, "judge", "judge gave no verdict (" + judgeFailed + ")");
    }
    var sort = $("f-sort");
    addOption(sort, "", "sample order");
    meta.metrics.forEach(function (m) {
      if (m.higher === null) {
        addOption(sort, m.name + ":desc", m.name + ": highest first");
        addOption(sort, m.name + ":asc", m.name + ": lowest first");
      } else {
        addOption(sort, m.name + ":worst", m.name + ": worst first");
        addOption(sort, m.name + ":best", m.name + ": best first");
      }
    });
    var size = $("f-page-size");
    [10, 25, 50, 100, 250].forEach(function (n) { addOption(size, String(n), String(n)); });
    size.value = String(state.pageSize);
    [group, outcome, sort, size].forEach(function (s) { s.addEventListener("change", update); });
    $("f-limit").addEventListener("input", update);
    $("f-worst").addEventListener("click", worst);
    if (!meta.metrics.some(function (m) { return m.higher !== null; })) {
      $("f-worst").hidden = true;
    }
    $("controls").addEventListener("submit", function (e) { e.preventDefault(); });
  }

  function update() {
    state.group = $("f-group").value;
    state.outcome = $("f-outcome").value;
    state.sort = $("f-sort").value;
    state.limit = parseInt($("f-limit").value, 10) || 0;
    state.pageSize = parseInt($("f-page-size").value, 10);
    state.page = 0;
    render();
  }

  function worst() {
    var current = state.sort.split(":")[0];
    var metric = byName[current] && byName[current].higher !== null ? current :
      meta.metrics.filter(function (m) { return m.higher !== null; })[0].name;
    $("f-sort").value = metric + ":worst";
    $("f-limit").value = "20";
    update();
  }

  function keep(s) {
    if (state.group && s.group !== state.group) { return false; }
    if (state.outcome === "valid") { return s.kind === null; }
    if (state.outcome === "failed") { return s.kind !== null; }
    if (state.outcome.indexOf("kind:") === 0) { return s.kind === state.outcome.slice(5); }
    if (state.outcome === "judge") { return s.judge !== undefined; }
    return true;
  }

  function selected() {
    var list = samples.map(function (s, i) { return [s, i]; }).filter(function (p) { return keep(p[0]); });
    if (state.sort) {
      var parts = state.sort.split(":");
      var name = parts[0];
      var higher = byName[name].higher;
      var ascending = parts[1] === "asc" || (parts[1] === "worst" && higher) ||
        (parts[1] === "best" && !higher);
      list.sort(function (a, b) {
        var x = a[0].m[name], y = b[0].m[name];
        var xm = x === null || x === undefined, ym = y === null || y === undefined;
        if (xm || ym) { return xm === ym ? a[1] - b[1] : (xm ? 1 : -1); }
        if (x === y) { return a[1] - b[1]; }
        return ascending ? x - y : y - x;
      });
    }
    list = list.map(function (p) { return p[0]; });
    return state.limit > 0 ? list.slice(0, state.limit) : list;
  }

  function figure(label, image) {
    var fig = el("figure", "render");
    if (image.src) {
      var img = el("img");
      img.src = image.src;
      img.alt = label;
      img.loading = "lazy";
      img.width = 160;
      img.height = 160;
      fig.appendChild(img);
    } else if (image.error) {
      fig.appendChild(el("div", "noimg error", "render failed: " + image.error));
    } else {
      fig.appendChild(el("div", "noimg", image.missing || "none"));
    }
    fig.appendChild(el("figcaption", null, label));
    return fig;
  }

  function loadDetails(chunk, done) {
    if (details[chunk]) { done(details[chunk]); return; }
    if (waiting[chunk]) { waiting[chunk].push(done); return; }
    waiting[chunk] = [done];
    var script = document.createElement("script");
    script.src = "data/details-" + ("000" + chunk).slice(-4) + ".js";
    document.body.appendChild(script);
  }

  window.svgevalDetails = function (chunk, texts) {
    details[chunk] = texts;
    (waiting[chunk] || []).forEach(function (done) { done(texts); });
    delete waiting[chunk];
  };

  function fillDetails(box, s, texts) {
    var t = texts[s.id];
    box.textContent = "";
    var facts = [["extraction rule", t.rule], ["finish reason", t.finish], ["usage", t.usage],
      ["timing", t.timing]];
    var line = facts.filter(function (f) { return f[1]; })
      .map(function (f) { return f[0] + ": " + f[1]; }).join(" · ");
    box.appendChild(el("p", "facts", line));
    [["Prompt", t.prompt], ["Raw response", t.response], ["Extracted", t.extracted]]
      .forEach(function (part) {
        if (part[1] === null || part[1] === undefined) { return; }
        box.appendChild(el("h4", null, part[0]));
        box.appendChild(el("pre", null, part[1]));
      });
  }

  function card(s) {
    var node = el("article", "card " + (s.kind ? "failed" : "valid"));
    node.dataset.id = s.id;
    node.dataset.kind = s.kind || "valid";
    var head = el("header");
    head.appendChild(el("span", "sid", s.id));
    head.appendChild(el("span", "group", s.group));
    head.appendChild(el("span", "badge " + (s.kind ? "bad" : "good"), s.tag || "valid"));
    if (s.judge) { head.appendChild(el("span", "badge bad", "judge failed")); }
    node.appendChild(head);
    var row = el("div", "renders");
    [["input", "input"], ["output", "model"], ["reference", "reference"]].forEach(function (k) {
      if (s.img[k[0]]) { row.appendChild(figure(k[1], s.img[k[0]])); }
    });
    if (row.childNodes.length) { node.appendChild(row); }
    if (s.answer !== undefined || s.expected !== undefined) {
      node.appendChild(el("p", "answer", "answer: " + (s.answer === undefined ? "none" : s.answer) +
        (s.expected === undefined ? "" : " · expected: " + s.expected)));
    }
    var names = Object.keys(s.m);
    if (names.length) {
      var list = el("div", "m");
      names.forEach(function (name) {
        var chip = el("span", "chip");
        chip.appendChild(el("b", null, name));
        chip.appendChild(document.createTextNode(" " + fmt(s.m[name])));
        list.appendChild(chip);
      });
      node.appendChild(list);
    }
    if (s.kind) {
      node.appendChild(el("p", "failure", s.tag + (s.detail ? ": " + s.detail : "")));
    }
    (s.judge || []).forEach(function (j) {
      node.appendChild(el("p", "failure judge", "judge gave no verdict for " +
        j.metrics.join(", ") + " (" + j.kind + "): " + j.detail));
    });
    var more = el("details");
    more.appendChild(el("summary", null, "prompt and raw response"));
    var box = el("div", "texts", "loading…");
    more.appendChild(box);
    more.addEventListener("toggle", function () {
      if (more.open && !box.dataset.filled) {
        box.dataset.filled = "1";
        loadDetails(s.chunk, function (texts) { fillDetails(box, s, texts); });
      }
    });
    node.appendChild(more);
    return node;
  }

  function pager(holder, pages) {
    holder.textContent = "";
    if (pages <= 1) { return; }
    function button(label, page, disabled) {
      var b = el("button", null, label);
      b.type = "button";
      b.disabled = disabled;
      b.addEventListener("click", function () { state.page = page; render(); window.scrollTo(0, $("gallery").offsetTop); });
      holder.appendChild(b);
    }
    button("«", 0, state.page === 0);
    button("‹", state.page - 1, state.page === 0);
    holder.appendChild(el("span", "page", "page " + (state.page + 1) + " of " + pages));
    button("›", state.page + 1, state.page >= pages - 1);
    button("»", pages - 1, state.page >= pages - 1);
  }

  function render() {
    var list = selected();
    var pages = Math.max(1, Math.ceil(list.length / state.pageSize));
    state.page = Math.min(state.page, pages - 1);
    var start = state.page * state.pageSize;
    var shown = list.slice(start, start + state.pageSize);
    var cards = $("cards");
    cards.textContent = "";
    shown.forEach(function (s) { cards.appendChild(card(s)); });
    $("g-status").textContent = list.length === 0 ? "no sample matches" :
      "showing " + (start + 1) + "–" + (start + shown.length) + " of " + list.length +
      (list.length === samples.length ? "" : " (of " + samples.length + " samples)");
    pager($("pager-top"), pages);
    pager($("pager-bottom"), pages);
  }

  setupControls();
  render();
}());
