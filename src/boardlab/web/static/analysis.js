// The analysis board: a position set up with the game's editor (or opened from a game,
// a review, a lesson or a link), played freely by both sides as a line that can be
// stepped back and forth, with the AI's best lines for the position shown. The server
// keeps nothing: the page holds the positions' strings and asks what follows; the
// address always names the position shown, so a link shares it.

import { Board, keepSpeed, showTurn } from "./board.js";
import { _, number } from "./i18n.js";
import { askBoard, boardAddress, fetchBoard } from "./positions.js";

const $ = (id) => document.getElementById(id);
const root = $("analysis");
const data = JSON.parse($("analysis-data").textContent);
const tools = new Map(data.tools.map((t) => [t.id, t]));
// The line played from the position set up: each position with the action to it.
let line = [{ view: data.board, action: null }];
let at = 0; // the position shown
let mode = data.board.error ? "setup" : "play";
let busy = false;
let analysed = null; // the AI's lines for the position shown, once they came
let asked = 0; // the number of the last analysis asked: a later one makes it stale
const KEEP_LINES = "boardlab.analysis.lines";

const current = () => line[at].view;
keepSpeed($("speed"));
$("lines-on").checked = localStorage.getItem(KEEP_LINES) === "on";
const board = new Board($("board"), {
  play: (action) => play(action),
  say: (text) => say(text, "error"),
  changed: () => renderStatus(),
});

// ------------------------------------------------------------------ playing
async function play(action) {
  const view = await request(() => fetchBoard(current(), [action]));
  if (!view) return;
  board.live = false;
  await board.animate(view.last.notes, renderStatus);
  line = [...line.slice(0, at + 1), { view, action }];
  at += 1;
  shown();
}

function go(to) {
  if (to < 0 || to >= line.length || to === at || mode !== "play") return;
  at = to;
  board.selected = [];
  shown();
}

async function request(asking) {
  busy = true;
  say("");
  render();
  try {
    return await asking();
  } catch (error) {
    say(error.message, "error");
    return null;
  } finally {
    busy = false;
  }
}

function shown() {
  // A new position on show: its address, and the AI's lines if they are wanted.
  history.replaceState(null, "", boardAddress(`/analysis/${data.board.game}`, current()));
  analysed = null;
  render();
  analyse();
}

// ------------------------------------------------------------------ the AI's lines
async function analyse() {
  const view = current();
  if (!$("lines-on").checked || mode !== "play" || view.to_act === null) return renderLines();
  const number = ++asked;
  analysed = { waiting: true };
  renderLines();
  try {
    const found = await askBoard(view, "analysis");
    if (number === asked) analysed = found;
  } catch (error) {
    if (number === asked) analysed = { error: error.message };
  }
  if (number === asked) renderLines();
}

function worth(found, item) {
  // A line's value for the player to act, in words: exact points, or the evaluation.
  const player = current().players[found.player];
  if (found.exact) {
    if (item.value === 0) return _("a draw with perfect play");
    const n = number(Math.abs(item.value));
    return item.value > 0 ? _("{player} wins by {n}", { player, n }) : _("{player} loses by {n}", { player, n });
  }
  const chance = Math.round(50 * (item.value + 1));
  return _("{value} for {player} (about {chance}%)", { value: (item.value >= 0 ? "+" : "") + number(item.value, 2), player, chance });
}

function renderLines() {
  const box = $("lines");
  box.innerHTML = "";
  if (!$("lines-on").checked || mode !== "play") return;
  if (current().to_act === null) return;
  if (!analysed || analysed.waiting) {
    box.textContent = _("The AI is looking for the best lines…");
    return;
  }
  if (analysed.error) {
    box.textContent = analysed.error;
    return;
  }
  const head = document.createElement("p");
  head.className = "lines-head";
  head.textContent = analysed.exact ? _("Exact values: the game is solved from here.") : _("The AI's evaluation (+1 winning, −1 losing).");
  const list = document.createElement("ol");
  for (const item of analysed.lines) {
    const entry = document.createElement("li");
    const first = document.createElement("button");
    first.type = "button";
    first.className = "action";
    first.textContent = item.action;
    first.title = _("Play {action}", { action: item.action });
    first.onclick = () => play(item.action);
    const value = document.createElement("span");
    value.className = "line-value";
    value.textContent = worth(analysed, item);
    const rest = document.createElement("span");
    rest.className = "line-rest";
    rest.textContent = item.line.slice(1).join(" ");
    entry.append(first, " ", value, document.createElement("br"), rest);
    list.append(entry);
  }
  box.append(head, list);
  if (analysed.moves) box.append(explorer(analysed));
}

function explorer(found) {
  // Every legal move with its exact value, as a tablebase shows them: a click plays one.
  const table = document.createElement("table");
  table.className = "explorer";
  table.id = "explorer";
  const caption = document.createElement("caption");
  caption.textContent = _("Every move, exactly");
  table.append(caption);
  for (const item of found.moves) {
    const row = table.insertRow();
    row.className = item.value > 0 ? "wins" : item.value < 0 ? "loses" : "draws";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "action";
    button.textContent = item.action;
    button.onclick = () => play(item.action);
    row.insertCell().append(button);
    row.insertCell().textContent = worth(found, item);
  }
  return table;
}

$("lines-on").addEventListener("change", () => {
  localStorage.setItem(KEEP_LINES, $("lines-on").checked ? "on" : "off");
  analyse();
});

// ------------------------------------------------------------------ setting up
function tool() {
  return tools.get(document.querySelector("input[name=tool]:checked")?.value);
}

async function edit(toolId, place) {
  const view = await request(() => askBoard(current(), "edit", { tool: toolId, ...(place ? { place } : {}) }));
  if (!view) return render();
  setUp(view);
}

function setUp(view) {
  // The position being set up replaces the line: it is its new start.
  line = [{ view, action: null }];
  at = 0;
  history.replaceState(null, "", boardAddress(`/analysis/${data.board.game}`, view));
  render();
}

function editable() {
  // The places the chosen tool changes, made clickable.
  const chosen = tool();
  const kinds = new Set(chosen ? chosen.kinds : []);
  for (const place of $("board").querySelectorAll("[data-place]")) {
    const can = mode === "setup" && !busy && kinds.has(current().places?.[place.dataset.place]);
    place.classList.toggle("selectable", can);
    if (can) {
      place.setAttribute("tabindex", "0");
      place.setAttribute("role", "button");
    } else if (mode === "setup") {
      place.removeAttribute("tabindex");
      place.removeAttribute("role");
    }
  }
}

$("board").addEventListener("click", (event) => {
  const place = event.target.closest("[data-place]");
  if (mode === "setup" && place && place.classList.contains("selectable")) edit(tool().id, place.dataset.place);
});
$("board").addEventListener("keydown", (event) => {
  const place = event.target.closest("[data-place]");
  if (mode === "setup" && place && place.classList.contains("selectable") && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault();
    edit(tool().id, place.dataset.place);
  }
});
for (const input of document.querySelectorAll("input[name=tool]")) input.addEventListener("change", () => editable());
for (const button of document.querySelectorAll("[data-tool]")) button.onclick = () => edit(button.dataset.tool);
$("setup-start").onclick = async () => {
  const view = await request(() => askBoard({ ...current(), position: "" }, "edit"));
  if (view) setUp(view);
};
$("setup-done").onclick = () => setMode("play");
$("mode-play").onclick = () => setMode("play");
$("mode-setup").onclick = () => setMode("setup");

function setMode(wanted) {
  if (wanted === "play" && current().error) return say(current().error, "error");
  if (wanted === "setup") {
    line = [line[at]];
    at = 0;
  }
  mode = wanted;
  board.selected = [];
  say("");
  shown();
}

$("position-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = $("position-text").value.trim();
  const view = await request(() => askBoard({ ...current(), position: text }, "edit"));
  if (!view) return render();
  setUp(view);
  if (!view.error && mode === "play") shown();
});

$("share").onclick = async () => {
  try {
    await navigator.clipboard.writeText(location.href);
    say(_("The link to this position is copied."));
  } catch {
    say(_("Copy the address of this page: it names the position."));
  }
};

// ------------------------------------------------------------------ showing
function render() {
  const view = current();
  root.dataset.mode = mode;
  root.dataset.ready = String(!busy && !board.moving);
  root.dataset.position = view.position;
  board.legal = mode === "play" ? view.legal : [];
  board.live = mode === "play" && !busy;
  board.player = view.to_act === null ? "" : view.players[view.to_act];
  board.due = view.due;
  if (!board.moving) board.draw(view.svg);
  editable();
  board.buttons($("buttons"), mode === "play" && view.to_act !== null, busy);
  $("mode-play").setAttribute("aria-pressed", String(mode === "play"));
  $("mode-setup").setAttribute("aria-pressed", String(mode === "setup"));
  $("mode-play").className = mode === "play" ? "" : "quiet";
  $("mode-setup").className = mode === "setup" ? "" : "quiet";
  $("mode-play").disabled = !!view.error;
  $("play-panel").hidden = $("stepper").hidden = mode !== "play";
  $("setup-panel").hidden = mode !== "setup";
  $("setup-done").disabled = !!view.error || busy;
  $("position-text").value = view.position;
  const verdict = $("verdict");
  verdict.className = view.error ? "verdict error" : "verdict";
  verdict.textContent = view.error
    ? view.error
    : view.to_act === null
      ? view.outcome?.sentence || ""
      : _("A legal position: {player} to act ({due}).", { player: view.players[view.to_act], due: view.due });
  for (const [id, to] of [["first", 0], ["prev", at - 1], ["next", at + 1], ["last", line.length - 1]]) {
    $(id).disabled = mode !== "play" || to < 0 || to >= line.length || to === at;
  }
  renderStatus();
  renderMoves();
  renderNotes();
  renderLines();
}

function renderStatus() {
  const status = $("status");
  if (mode === "setup" && !board.moving) {
    status.className = "status";
    status.textContent = current().error ? _("Setting up: not a legal position yet") : _("Setting up a position");
    return;
  }
  showTurn(status, current(), board);
}

function renderMoves() {
  const list = $("moves");
  list.innerHTML = "";
  list.closest("section").hidden = line.length < 2;
  line.slice(1).forEach((entry, k) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "action";
    button.textContent = entry.action;
    if (k + 1 === at) button.setAttribute("aria-current", "true");
    button.onclick = () => go(k + 1);
    item.append(button);
    list.append(item);
  });
}

function renderNotes() {
  const list = $("notes");
  list.innerHTML = "";
  list.closest("section").hidden = !current().last.notes.length;
  for (const note of current().last.notes) {
    const item = document.createElement("li");
    item.textContent = note.text;
    list.append(item);
  }
}

$("first").onclick = () => go(0);
$("prev").onclick = () => go(at - 1);
$("next").onclick = () => go(at + 1);
$("last").onclick = () => go(line.length - 1);
document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, select, textarea")) return;
  const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: line.length - 1 }[event.key];
  if (to === undefined || mode !== "play") return;
  event.preventDefault();
  go(to);
});

function say(text, kind = "info") {
  const box = $("message");
  box.textContent = text;
  box.className = `message ${kind}`;
}

render();
analyse();
