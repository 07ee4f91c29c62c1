// banco pages: one small script shared by the live board, the overlay, the overview and the console.
"use strict";

const banco = {};

banco.gameIdFromPath = () => Number(location.pathname.split("/").filter(Boolean).pop());

banco.params = new URLSearchParams(location.search);

banco.formatClock = (ms) => {
  if (ms === null || ms === undefined) return "–";
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600), m = Math.floor(total / 60) % 60, s = total % 60;
  const mm = String(m).padStart(2, "0"), ss = String(s).padStart(2, "0");
  return h ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
};

// The remaining time of each side now, counting the running clock down since the server's stamp.
banco.clockNow = (clocks, side) => {
  const ms = side === "w" ? clocks.white_ms : clocks.black_ms;
  if (ms === null || ms === undefined) return null;
  if (clocks.running === side && clocks.since) return ms - (Date.now() / 1000 - clocks.since) * 1000;
  return ms;
};

banco.chooseNotation = (snapshot) => {
  const wanted = banco.params.get("notation");
  const names = Object.keys(snapshot.moves);
  if (wanted && names.includes(wanted)) return wanted;
  if (names.includes("vn-coord")) return "vn-coord";
  return snapshot.default_notation;
};

banco.drawBoard = async (element, snapshot, { labels = true } = {}) => {
  const url = `/api/games/${snapshot.game_id}/diagram.svg?labels=${labels}&seq=${snapshot.seq}`;
  const response = await fetch(url);
  if (!response.ok) return;
  const svg = await response.text();
  if (Number(element.dataset.drawn || -1) <= snapshot.seq) {
    element.innerHTML = svg;
    element.dataset.drawn = snapshot.seq;
  }
};

// The move number and mover of the record's ply-th move (1-based), as the server counts it
// (server/record.py move_number): a record that starts with the second side to move begins "1...".
banco.moveNumber = (snapshot, ply) => {
  const first = snapshot.first_move || { number: 1, color: "w" };
  const index = ply - 1 + (first.color === "b" ? 1 : 0);
  return { number: first.number + Math.floor(index / 2), color: index % 2 === 0 ? "w" : "b" };
};

// "1. Mg2" for the first side's move, "1... Mg7" for the reply.
banco.moveLabel = (snapshot, ply, text) => {
  const { number, color } = banco.moveNumber(snapshot, ply);
  return color === "w" ? `${number}. ${text}` : `${number}... ${text}`;
};

banco.renderMoves = (list, snapshot, notation) => {
  const moves = snapshot.moves[notation] || [];
  list.innerHTML = "";
  let li = null;
  moves.forEach((text, i) => {
    const ply = i + 1;
    const { number, color } = banco.moveNumber(snapshot, ply);
    if (li === null || color === "w") {
      li = document.createElement("li");
      li.dataset.ply = ply;
      li.textContent = color === "w" ? `${number}. ${text}` : `${number}... ${text}`;
      list.appendChild(li);
    } else {
      li.textContent += ` ${text}`;
    }
  });
  list.dataset.count = moves.length;
  list.dataset.last = moves.length ? moves[moves.length - 1] : "";
};

banco.renderClocks = (element, snapshot) => {
  const tick = () => {
    for (const side of ["w", "b"]) {
      const span = element.querySelector(`[data-side="${side}"]`);
      if (!span) continue;
      span.textContent = banco.formatClock(banco.clockNow(snapshot.clocks, side));
      span.classList.toggle("running", snapshot.clocks.running === side);
    }
  };
  tick();
  clearInterval(element._timer);
  if (snapshot.clocks.running) element._timer = setInterval(tick, 250);
};

// Follow one game's snapshots; EventSource resumes with Last-Event-ID by itself after a drop.
banco.follow = (gameId, onSnapshot) => {
  const source = new EventSource(`/api/games/${gameId}/stream`);
  let latest = -1;
  source.addEventListener("snapshot", (event) => {
    const snapshot = JSON.parse(event.data);
    if (snapshot.seq <= latest) return;
    latest = snapshot.seq;
    onSnapshot(snapshot);
  });
  return source;
};

banco.followEvent = (eventId, onSnapshot) => {
  const source = new EventSource(`/api/events/${eventId}/stream`);
  source.addEventListener("snapshot", (event) => onSnapshot(JSON.parse(event.data)));
  return source;
};

banco.players = (snapshot) => `${snapshot.white || "Trắng"} – ${snapshot.black || "Đen"}`;

window.banco = banco;
