// The station panel of the live page and the referee console: the LED board mirrored on screen,
// the devices, the camera and what it cannot read surely (its warnings hold while they apply),
// and the station's recent doubts. It follows /api/games/{id}/station/stream; with no station
// reporting for the game, the panel stays hidden.
"use strict";

const station = {};

station.PERIOD_MS = 1000;  // blink and pulse share one 1 s cycle, as on the device (PROTOCOL.md §5.2)

station.level = (pattern, t) => {
  if (pattern === "O") return 0;
  if (pattern === "S") return 1;
  const phase = (t % station.PERIOD_MS) / station.PERIOD_MS;
  if (pattern === "B") return phase < 0.5 ? 1 : 0;
  return 0.1 + 0.9 * (1 - Math.abs(2 * phase - 1));  // pulse: a triangle wave from 10 % to 100 %
};

station.drawLeds = (element, leds) => {
  if (!leds) { element.innerHTML = ""; element.dataset.lit = 0; return; }
  const [files, ranks] = leds.grid;
  const size = 18, svgNS = "http://www.w3.org/2000/svg";
  if (element.dataset.grid !== `${files}x${ranks}`) {
    const svg = document.createElementNS(svgNS, "svg");
    svg.setAttribute("viewBox", `0 0 ${files * size} ${ranks * size}`);
    svg.setAttribute("class", "led-grid");
    for (let rank = ranks - 1; rank >= 0; rank--) {  // Black's side on top, as White sees the board
      for (let file = 0; file < files; file++) {
        const dot = document.createElementNS(svgNS, "circle");
        dot.setAttribute("cx", file * size + size / 2);
        dot.setAttribute("cy", (ranks - 1 - rank) * size + size / 2);
        dot.setAttribute("r", size * 0.36);
        dot.dataset.point = `${file},${rank}`;
        svg.appendChild(dot);
      }
    }
    element.innerHTML = "";
    element.appendChild(svg);
    element.dataset.grid = `${files}x${ranks}`;
  }
  let lit = 0;
  element._cells = [];
  for (const dot of element.querySelectorAll("circle")) {
    const [file, rank] = dot.dataset.point.split(",").map(Number);
    const entry = leds.palette[parseInt(leds.points[rank * files + file], 36)] || "O000000";
    const pattern = entry[0], color = `#${entry.slice(1)}`;
    dot.dataset.pattern = pattern;
    dot.dataset.color = pattern === "O" ? "" : color;
    if (pattern !== "O") lit++;
    element._cells.push([dot, pattern, color]);
  }
  element.dataset.lit = lit;
  station.animate(element);
};

station.animate = (element) => {
  const t = Date.now();
  for (const [dot, pattern, color] of element._cells || []) {
    const level = station.level(pattern, t);
    dot.setAttribute("fill", level > 0 ? color : "#2b2b2b");
    dot.setAttribute("fill-opacity", level > 0 ? level : 1);
  }
};

station.render = (panel, status) => {
  panel.hidden = false;
  panel.dataset.ply = status.ply;
  station.drawLeds(panel.querySelector(".leds"), status.leds);
  const clock = status.clock || {}, leds = status.leds_device || {};
  const state = (on) => (on ? "✓" : "✗");
  panel.querySelector(".devices").textContent =
    `camera: ${status.camera} · clock: ${clock.device} ${clock.device === "none" ? "" : state(clock.connected)}` +
    ` · LEDs: ${leds.device} ${leds.device === "none" ? "" : state(leds.connected)}` +
    (status.waiting ? ` · ${status.waiting} move(s) waiting to be stored` : "");
  const warnings = panel.querySelector(".camera-warnings");
  warnings.innerHTML = "";
  for (const text of status.camera_warnings || []) {
    const li = document.createElement("li");
    li.textContent = text;
    warnings.appendChild(li);
  }
  const list = panel.querySelector(".station-events");
  list.innerHTML = "";
  for (const event of (status.events || []).slice(-6).reverse()) {
    const li = document.createElement("li");
    li.className = event.kind;
    li.textContent = event.text;
    list.appendChild(li);
  }
};

station.follow = (gameId, panel) => {
  const source = new EventSource(`/api/games/${gameId}/station/stream`);
  source.addEventListener("station", (event) => station.render(panel, JSON.parse(event.data)));
  setInterval(() => station.animate(panel.querySelector(".leds")), 100);
  return source;
};

window.station = station;
