// The follower's page (svmlab/ui/hall/routes.py): the lecturer's view, pushed
// by the server as server-sent events, drawn with plotly.js; the room's
// question, answered here. Everything that comes from the room (the lecturer's
// texts, other followers' names) is set as text, never as HTML.
(function () {
  "use strict";
  const body = document.body;
  const code = body.dataset.code;
  if (!code) return;
  const $ = (id) => document.getElementById(id);
  const shown = code.slice(0, 3) + " " + code.slice(3);
  const room = {
    version: -1,
    parts: {},
    question: null,
    mine: null, // this page's answer to the open question
    state: "connecting",
  };
  const SAID = {
    live: "Following room " + shown + ": live.",
    paused: "Room " + shown + " is paused by the lecturer: you keep this picture " +
      "until they resume.",
    gone: "The lecturer's screen in room " + shown + " is disconnected: this page " +
      "follows again as soon as it is back.",
    closed: "The lecturer closed room " + shown + ". Try it yourself from here.",
    reconnecting: "Connection to room " + shown + " lost: reconnecting…",
  };

  function setState(state, text) {
    room.state = state;
    body.dataset.status = state;
    $("status").textContent = text || SAID[state] || state;
  }

  function css(name) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  }

  // -- the figure ------------------------------------------------------------------

  // Whole grid steps back to coordinates (svmlab/ui/hall/view.py, packed).
  function unpack(xy, grid, steps) {
    const x = [];
    const y = [];
    let px = null;
    let py = null;
    for (let i = 0; i + 1 < xy.length; i += 2) {
      const a = xy[i];
      const b = xy[i + 1];
      if (a === null || b === null) {
        x.push(null);
        y.push(null);
        px = py = null;
        continue;
      }
      if (steps && px !== null) {
        px += a;
        py += b;
      } else {
        px = a;
        py = b;
      }
      x.push(grid.x0 + px * grid.q);
      y.push(grid.y0 + py * grid.q);
    }
    return { x: x, y: y };
  }

  function parsed(name) {
    const text = room.parts[name];
    return text === undefined ? null : text;
  }

  function traces() {
    const grid = parsed("grid") || { x0: 0, y0: 0, q: 1 };
    const out = [];
    for (const [name, steps] of [["lines", true], ["marks", false]]) {
      for (const t of parsed(name) || []) {
        const xy = unpack(t.xy, grid, steps);
        out.push(Object.assign({}, t, { xy: undefined, x: xy.x, y: xy.y,
          hoverinfo: "skip" }));
      }
    }
    const q = room.question;
    if (q && q.kind === "point") {
      const reveal = q.reveal && q.reveal.summary;
      if (reveal && reveal.points && reveal.points.length) {
        const px = reveal.points.map((p) => p[0]);
        const py = reveal.points.map((p) => p[1]);
        out.push({ type: "histogram2dcontour", x: px, y: py, ncontours: 8,
          contours: { coloring: "lines" }, showscale: false, hoverinfo: "skip",
          colorscale: [[0, "rgba(230,159,0,0.2)"], [1, "rgba(230,159,0,1)"]],
          line: { width: 2 } });
        out.push({ type: "scatter", mode: "markers", x: px, y: py, hoverinfo: "skip",
          marker: { size: 6, color: "rgba(230,159,0,0.55)" } });
      }
      if (room.mine) {
        out.push({ type: "scatter", mode: "markers", x: [room.mine[0]],
          y: [room.mine[1]], hoverinfo: "skip", name: "your answer",
          marker: { symbol: "star", size: 18, color: "#E69F00",
            line: { color: css("--fg"), width: 1.5 } } });
      }
    }
    return out;
  }

  function layout() {
    const base = parsed("layout") || {};
    const narrow = window.innerWidth < 600;
    const fg = css("--fg");
    const axis = css("--axis");
    const lay = JSON.parse(JSON.stringify(base));
    lay.images = [];
    for (const name of ["image0", "image1", "image2"]) {
      const im = parsed(name);
      if (im) lay.images.push(im);
    }
    lay.font = Object.assign({}, lay.font, { color: fg, size: narrow ? 12 : 15 });
    lay.margin = narrow ? { l: 40, r: 8, t: 8, b: 36 } : { l: 56, r: 12, t: 12, b: 48 };
    for (const a of ["xaxis", "yaxis"]) {
      if (!lay[a]) continue;
      lay[a].linecolor = axis;
      lay[a].tickcolor = axis;
      lay[a].fixedrange = true;
      if (lay[a].title && lay[a].title.font) {
        lay[a].title.font = Object.assign({}, lay[a].title.font,
          { size: narrow ? 13 : 16 });
      }
    }
    lay.paper_bgcolor = "rgba(0,0,0,0)";
    lay.showlegend = false;
    lay.dragmode = false;
    lay.hovermode = false;
    lay.autosize = true;
    lay.uirevision = "room";
    return lay;
  }

  let drawing = null;
  function draw() {
    if (!window.Plotly || drawing) return;
    drawing = window.requestAnimationFrame(() => {
      drawing = null;
      window.Plotly.react($("plot"), traces(), layout(), {
        displayModeBar: false, responsive: true, scrollZoom: false,
        doubleClick: false, showTips: false,
      });
      installClick();
    });
  }

  function drawText() {
    const numbers = parsed("numbers") || { cells: [] };
    const box = $("numbers");
    box.textContent = "";
    for (const [label, value] of numbers.cells) {
      const cell = document.createElement("div");
      cell.className = "cell" + (label === numbers.highlight ? " framed" : "");
      const l = document.createElement("div");
      l.className = "label";
      l.textContent = label;
      const v = document.createElement("div");
      v.className = "value";
      v.textContent = value;
      v.dataset.number = label;
      cell.append(l, v);
      box.append(cell);
    }
    const text = parsed("text") || {};
    $("title").textContent = text.title || "";
    $("look").textContent = text.look || "";
    $("caption").textContent = text.caption || "";
    const link = new URLSearchParams(parsed("link") || "");
    link.set("from_room", code);
    $("try").href = "/Explore?" + link.toString();
  }

  function take(message, full) {
    if (full) {
      room.parts = {};
    } else if (message.base !== room.version) {
      catchUp();
      return;
    }
    for (const [k, v] of Object.entries(message.parts)) room.parts[k] = v;
    for (const k of message.drop || []) delete room.parts[k];
    room.version = message.v;
    body.dataset.version = String(room.version);
    draw();
    drawText();
  }

  function catchUp() {
    fetch("/room/" + code + "/view", { cache: "no-store" })
      .then((r) => (r.ok ? r.json() : null))
      .then((m) => { if (m) take(m, true); })
      .catch(() => {});
  }

  // -- the question ------------------------------------------------------------

  let clickInstalled = false;
  function installClick() {
    if (clickInstalled) return;
    const gd = $("plot");
    if (!gd._fullLayout) return;
    clickInstalled = true;
    gd.addEventListener("click", (event) => {
      const q = room.question;
      if (!q || q.kind !== "point" || !q.open) return;
      const drag = gd.querySelector(".nsewdrag");
      if (!drag) return;
      const box = drag.getBoundingClientRect();
      if (event.clientX < box.left || event.clientX > box.right ||
          event.clientY < box.top || event.clientY > box.bottom) return;
      const lay = gd._fullLayout;
      const x = lay.xaxis.p2l(event.clientX - box.left);
      const y = lay.yaxis.p2l(event.clientY - box.top);
      if (Number.isFinite(x) && Number.isFinite(y)) answer([x, y]);
    });
  }

  function answer(value) {
    const q = room.question;
    if (!q || !q.open) return;
    const name = $("name").value.slice(0, 24);
    try { window.localStorage.setItem("svmlab_name", name); } catch (e) { /* private */ }
    fetch("/room/" + code + "/answer", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ q: q.id, a: value, name: name }),
    })
      .then((r) => r.json().then((j) => [r.ok, j]))
      .then(([ok, j]) => {
        if (!ok) {
          $("answer-note").textContent = j.error || "Your answer was not counted.";
          return;
        }
        room.mine = j.answer;
        $("answer-note").textContent = "Your answer: " + said(q, room.mine) +
          ". You can change it until the lecturer reveals the answer.";
        drawChoices();
        if (q.kind === "point") draw();
      })
      .catch(() => {
        $("answer-note").textContent = "Your answer did not reach the server: try again.";
      });
  }

  function said(q, value) {
    if (value === null || value === undefined) return "";
    if (q.kind === "choice") return q.choices[value] || "";
    if (q.kind === "point") return "(" + value[0].toFixed(2) + ", " + value[1].toFixed(2) + ")";
    return String(value) + (q.unit || "");
  }

  function drawChoices() {
    const q = room.question;
    const box = $("choices");
    box.textContent = "";
    if (!q || q.kind !== "choice") return;
    q.choices.forEach((choice, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "choice";
      b.textContent = choice;
      b.setAttribute("aria-pressed", String(room.mine === i));
      b.disabled = !q.open;
      b.addEventListener("click", () => answer(i));
      box.append(b);
    });
  }

  function drawQuestion(q) {
    const previous = room.question;
    if (!q || !previous || previous.id !== q.id) room.mine = null;
    room.question = q;
    const section = $("question");
    section.hidden = !q;
    body.dataset.question = q ? (q.open ? "open" : "revealed") : "none";
    if (!q) {
      draw();
      return;
    }
    $("prompt").textContent = q.prompt;
    drawChoices();
    $("number").hidden = q.kind !== "number" || !q.open;
    $("unit").textContent = q.unit || "";
    if (q.open) {
      $("answer-note").textContent = room.mine !== null ? $("answer-note").textContent
        : q.kind === "point" ? "Click (or tap) on the figure where you think it goes."
        : "";
    }
    $("reveal").hidden = !q.reveal;
    if (q.reveal) {
      $("answer-note").textContent = room.mine !== null
        ? "Your answer: " + said(q, room.mine) + "." : "You did not answer.";
      $("truth").textContent = q.reveal.text || "";
      drawReveal(q);
    }
    draw();
  }

  function drawReveal(q) {
    const s = q.reveal.summary || {};
    const target = $("reveal-plot");
    const fg = css("--fg");
    const lay = { margin: { l: 40, r: 8, t: 8, b: 40 }, paper_bgcolor: "rgba(0,0,0,0)",
      plot_bgcolor: "rgba(0,0,0,0)", font: { color: fg, size: 13 }, showlegend: false,
      dragmode: false, yaxis: { title: { text: "answers" }, fixedrange: true,
        rangemode: "tozero" }, xaxis: { fixedrange: true } };
    let data = [];
    if (q.kind === "choice" && s.counts) {
      // Across, as on the projector: a choice's words on one line.
      data = [{ type: "bar", orientation: "h", y: q.choices, x: s.counts,
        hoverinfo: "skip", marker: { color: q.choices.map((_, i) =>
          i === q.reveal.truth ? "#009E73" : "#999999") } }];
      lay.xaxis = { title: { text: "answers" }, fixedrange: true, rangemode: "tozero",
        dtick: Math.max(1, Math.ceil(Math.max(...s.counts) / 5)) };
      lay.yaxis = { autorange: "reversed", automargin: true, fixedrange: true };
    } else if (q.kind === "number" && s.counts) {
      const mids = s.counts.map((_, i) => (s.edges[i] + s.edges[i + 1]) / 2);
      const widths = s.counts.map((_, i) => s.edges[i + 1] - s.edges[i]);
      data = [{ type: "bar", x: mids, y: s.counts, width: widths, hoverinfo: "skip",
        marker: { color: "#999999" } }];
      if (Number.isFinite(q.reveal.truth)) {
        lay.shapes = [{ type: "line", x0: q.reveal.truth, x1: q.reveal.truth, y0: 0,
          y1: 1, yref: "paper", line: { color: "#009E73", width: 3 } }];
      }
    }
    target.hidden = data.length === 0;
    if (data.length && window.Plotly) {
      window.Plotly.react(target, data, lay, { displayModeBar: false, responsive: true,
        staticPlot: true });
    }
  }

  $("number").addEventListener("submit", (event) => {
    event.preventDefault();
    answer($("number-value").value.slice(0, 24));
  });
  try { $("name").value = window.localStorage.getItem("svmlab_name") || ""; } catch (e) {
    /* private mode */
  }

  // -- the stream --------------------------------------------------------------

  let source = null;
  function connect() {
    source = new EventSource("/room/" + code + "/events");
    source.addEventListener("full", (e) => take(JSON.parse(e.data), true));
    source.addEventListener("view", (e) => take(JSON.parse(e.data), false));
    source.addEventListener("status", (e) => {
      const s = JSON.parse(e.data).state;
      setState(s);
      if (s === "closed") source.close();
    });
    source.addEventListener("question", (e) => drawQuestion(JSON.parse(e.data)));
    source.addEventListener("refused", (e) => {
      source.close();
      setState("refused", JSON.parse(e.data).text);
    });
    source.onerror = () => {
      if (room.state === "closed" || room.state === "refused") return;
      setState("reconnecting");
    };
  }
  window.addEventListener("resize", draw);
  connect();
  // plotly.js loads deferred too: draw what arrived before it.
  window.addEventListener("load", draw);
})();
