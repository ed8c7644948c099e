// The review page: step through every position of a game; once the AI has reviewed it,
// each action shows the best action, the values and the marks, and a graph of the
// evaluation over the game. The page holds no boards: it asks the server for the ones
// it shows, a chunk at a time (a long game's boards, all at once, ran to gigabytes).

import { _, number } from "./i18n.js";
import { boardAddress } from "./positions.js";

const root = document.getElementById("review");
const gameId = root.dataset.id;
const state = JSON.parse(document.getElementById("state").textContent);
// The start and the position after each action.
const total = Number(root.dataset.positions);
const $ = (id) => document.getElementById(id);
const nameOf = (player) => state.seats[player].name;
const SYMBOL = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const MARK = { inaccuracy: _("inaccuracy"), mistake: _("mistake"), blunder: _("blunder") };
// Boards come in chunks of CHUNK positions (the most the server draws at once), the next
// chunk asked for when a step comes within NEAR of the edge of the current one; the KEEP
// boards used last are kept, so a long game's memory stays bounded here too.
const CHUNK = 50;
const NEAR = 10;
const KEEP = 200;
const boards = new Map(); // ply → board, the one used longest ago first
const asking = new Map(); // first ply of a chunk → its request under way
let ply = total - 1;
let drawn = null; // the ply whose board is on show
let review = null; // items by ply, once ready
let spans = []; // the move list's entry of each ply (from 1), to mark the current one
let cursor = null; // the graph's line at the current ply

// Each action of the game in order, with the player who played it.
const actions = [];
for (const turn of state.moves) {
  turn.actions.forEach((action, k) => actions.push({ ply: turn.first_ply + k, player: turn.player, action, turn: turn.number }));
}

function go(to) {
  ply = Math.max(0, Math.min(total - 1, to));
  render();
}

function keep(board) {
  boards.delete(board.ply);
  boards.set(board.ply, board);
  while (boards.size > KEEP) boards.delete(boards.keys().next().value);
}

// Ask for the chunk that holds position `at`, unless it is in hand or asked for already.
function load(at) {
  if (at < 0 || at >= total || boards.has(at)) return;
  const first = at - (at % CHUNK);
  if (asking.has(first)) return;
  const url = `/api/games/${gameId}/positions?start=${first}&count=${CHUNK}`;
  const request = fetch(url, { headers: { Accept: "application/json" } })
    .then(async (response) => {
      const data = await response.json();
      if (!response.ok) throw new Error(data.error || response.statusText);
      data.boards.forEach(keep);
      if (drawn !== ply && boards.has(ply)) render();
    })
    .catch((error) => {
      if (!boards.has(ply)) $("status").textContent = error.message || String(error);
    })
    .finally(() => asking.delete(first));
  asking.set(first, request);
}

function render() {
  $("where").textContent =
    ply === 0 ? _("start") : _("after action {ply} of {length}", { ply, length: total - 1 });
  markCurrent();
  if (cursor) {
    cursor.setAttribute("x1", xOf(ply));
    cursor.setAttribute("x2", xOf(ply));
  }
  const notes = $("notes");
  notes.innerHTML = "";
  const item = ply > 0 && review ? review[ply - 1] : null;
  if (item) {
    const li = document.createElement("li");
    li.className = item.mark ? `mark-${item.mark}` : "";
    li.textContent = verdict(item);
    notes.append(li);
  }
  const wrap = $("board");
  const board = boards.get(ply);
  const status = $("status");
  if (!board) {
    // The board of the position before stays, dimmed, until this one comes.
    wrap.setAttribute("aria-busy", "true");
    status.textContent = _("Loading the position…");
    load(ply);
    return;
  }
  keep(board); // used last
  if (drawn !== ply) wrap.innerHTML = board.svg;
  $("analyse").href = boardAddress(`/analysis/${state.game}`, { position: board.position, options: state.options });
  drawn = ply;
  wrap.setAttribute("aria-busy", "false");
  if (board.to_act === null) {
    status.textContent = state.outcome ? state.outcome.sentence : _("The game is over.");
  } else {
    status.textContent = `${nameOf(board.to_act)}: ${board.due}`;
  }
  for (const note of board.notes) {
    const li = document.createElement("li");
    li.textContent = note;
    notes.append(li);
  }
  const first = ply - (ply % CHUNK);
  if (ply - first < NEAR) load(first - 1);
  if (first + CHUNK - ply <= NEAR) load(first + CHUNK);
}

function shown(value, exact) {
  if (value === null || value === undefined) return "?";
  return (value > 0 || (!exact && value === 0) ? "+" : "") + number(value, exact ? 0 : 2);
}

function verdict(item) {
  const values = {
    player: nameOf(item.player),
    played: item.played,
    best: item.best,
    played_value: shown(item.played_value, item.exact),
    best_value: shown(item.best_value, item.exact),
  };
  const mark = item.mark ? ` ${SYMBOL[item.mark]} ${MARK[item.mark]}` : "";
  if (item.best === item.played) {
    return item.exact
      ? _("{player} played {played}, the AI's choice too ({best_value}, exact).", values)
      : _("{player} played {played}, the AI's choice too ({best_value}).", values);
  }
  const text = item.exact
    ? _("{player} played {played} ({played_value}); best was {best} ({best_value}, exact).", values)
    : _("{player} played {played} ({played_value}); best was {best} ({best_value}).", values);
  return text + mark;
}

// The move list is built once (again when the review's marks arrive); a step only moves
// the mark of the current action: a long game has thousands.
function buildMoves() {
  const list = $("moves");
  list.innerHTML = "";
  spans = [];
  for (const turn of state.moves) {
    const li = document.createElement("li");
    li.value = turn.number;
    turn.actions.forEach((action, k) => {
      const at = turn.first_ply + k + 1;
      const span = document.createElement("span");
      span.className = "ply";
      const item = review ? review[at - 1] : null;
      span.textContent = action + (item && item.mark ? SYMBOL[item.mark] : "");
      if (item && item.mark) span.classList.add(`mark-${item.mark}`);
      span.dataset.ply = at;
      spans[at] = span;
      li.append(span, " ");
    });
    list.append(li);
  }
  markCurrent();
}

function markCurrent() {
  const list = $("moves");
  for (const old of list.querySelectorAll(".ply.current")) old.classList.remove("current");
  const span = spans[ply];
  if (!span) return;
  span.classList.add("current");
  // Scroll the list (not the page) to show it.
  const box = list.getBoundingClientRect();
  const at = span.getBoundingClientRect();
  if (at.top < box.top) list.scrollTop -= box.top - at.top;
  else if (at.bottom > box.bottom) list.scrollTop += at.bottom - box.bottom;
}

const WIDTH = 600, HEIGHT = 160, PAD = 10;
const xOf = (k) => PAD + ((WIDTH - 2 * PAD) * k) / Math.max(1, review ? review.length : 1);

function renderGraph() {
  // The value for the first player after each action, from the values of the player
  // who acted (the played action's value is his evaluation of the position after it).
  const box = $("graph");
  if (!review || !review.length) return;
  const width = WIDTH, height = HEIGHT, pad = PAD, xs = xOf;
  const ys = (v) => height / 2 - (height / 2 - pad) * Math.max(-1, Math.min(1, v));
  const points = [[xs(0), ys(0)]];
  review.forEach((item, k) => {
    let value = item.exact ? Math.sign(item.played_value) : item.played_value;
    if (item.player !== 0) value = -value;
    points.push([xs(k + 1), ys(value)]);
  });
  const line = points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ");
  const colour = { blunder: "#b3261e", mistake: "#d55e00", inaccuracy: "#c9a400" };
  const marks = review
    .map((item, k) =>
      item.mark
        ? `<circle cx="${xs(k + 1)}" cy="${points[k + 1][1]}" r="4" fill="${colour[item.mark]}"><title>${item.played}: ${MARK[item.mark]}</title></circle>`
        : "",
    )
    .join("");
  const area = `${xs(0)},${height / 2} ${line} ${xs(review.length)},${height / 2}`;
  const label = _("evaluation graph");
  box.innerHTML = `<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${label}">
    <rect x="0" y="0" width="${width}" height="${height / 2}" fill="${state.colours[0]}" fill-opacity="0.08"/>
    <rect x="0" y="${height / 2}" width="${width}" height="${height / 2}" fill="${state.colours[1]}" fill-opacity="0.08"/>
    <line x1="0" x2="${width}" y1="${height / 2}" y2="${height / 2}" stroke="#999" stroke-dasharray="4 3"/>
    <polygon points="${area}" fill="${state.colours[0]}" fill-opacity="0.25"/>
    <polyline points="${line}" fill="none" stroke="#1d2a35" stroke-width="2"/>
    ${marks}
    <line class="cursor" x1="${xs(ply)}" x2="${xs(ply)}" y1="0" y2="${height}" stroke="#1d5f8a" stroke-width="2"/>
  </svg>`;
  cursor = box.querySelector("line.cursor");
  box.querySelector("svg").onclick = (event) => {
    const rect = event.currentTarget.getBoundingClientRect();
    const k = Math.round(((event.clientX - rect.left) / rect.width * width - pad) / ((width - 2 * pad) / review.length));
    go(k);
  };
}

function renderSummary(data) {
  const box = $("summary");
  const rows = state.seats.map((seat, k) => {
    const mine = data.items.filter((item) => item.player === k);
    const count = (mark) => mine.filter((item) => item.mark === mark).length;
    // Exact losses are points and the AI's are estimates: they do not mix. The exact
    // ones count in the accuracy, so the mean loss is over the AI's alone.
    const judged = mine.filter((item) => !item.exact);
    const loss = judged.length ? number(judged.reduce((sum, item) => sum + item.loss, 0) / judged.length, 3) : "–";
    const player = (data.players || [])[k] || {};
    const accuracy = player.accuracy == null ? "–" : `${number(player.accuracy, 1)}% (${player.exact_moves})`;
    const cells = [count("inaccuracy"), count("mistake"), count("blunder"), loss, accuracy];
    return `<tr><td>${seat.name}</td>${cells.map((cell) => `<td>${cell}</td>`).join("")}</tr>`;
  });
  const heads = [
    ["?!", _("inaccuracies")],
    ["?", _("mistakes")],
    ["??", _("blunders")],
  ].map(([symbol, words]) => `<th title="${words}">${symbol}</th>`);
  const lossHead = _("mean loss");
  const accuracyTitle = _("lichess-style accuracy over the actions judged by exact values (how many)");
  const accuracyWord = _("accuracy");
  const accuracyHead = `<th title="${accuracyTitle}">${accuracyWord}</th>`;
  box.innerHTML = `<table class="summary-table"><thead><tr><th></th>${heads.join("")}<th>${lossHead}</th>${accuracyHead}</tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

async function poll() {
  if (!actions.length) {
    $("review-status").textContent = _("No actions to review yet.");
    return;
  }
  try {
    const response = await fetch(`/api/games/${gameId}/review`, { headers: { Accept: "application/json" } });
    const data = await response.json();
    if (!response.ok) {
      $("review-status").textContent = data.error || _("The review failed.");
      return;
    }
    if (data.status !== "ready") {
      setTimeout(poll, 1000);
      return;
    }
    review = data.items;
    $("review-status").textContent = _(
      "Reviewed by the AI ({agent}): marks show inaccuracies (?!), mistakes (?) and blunders (??).",
      { agent: data.agent_name || data.agent },
    );
    renderSummary(data);
    buildMoves();
    renderGraph();
    render();
  } catch (error) {
    setTimeout(poll, 3000);
  }
}

$("first").onclick = () => go(0);
$("prev").onclick = () => go(ply - 1);
$("next").onclick = () => go(ply + 1);
$("last").onclick = () => go(total - 1);
$("moves").onclick = (event) => {
  const span = event.target.closest(".ply");
  if (span) go(Number(span.dataset.ply));
};
const KEYS = { ArrowLeft: () => ply - 1, ArrowRight: () => ply + 1, Home: () => 0, End: () => total - 1 };
document.addEventListener("keydown", (event) => {
  if (!(event.key in KEYS) || event.altKey || event.ctrlKey || event.metaKey) return;
  event.preventDefault(); // a step, not a scroll of the page
  go(KEYS[event.key]());
});

buildMoves();
render();
poll();
