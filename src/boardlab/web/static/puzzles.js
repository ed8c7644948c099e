// Puzzles: a position where one move is best, proven by the solver; solved by clicks.
// Any answer the solution tree lists is right (equally good moves are all listed); the
// opponent answers from the tree after a short pause. A wrong answer is explained by the
// solver's exact values and not played; the solution is played on request. The browser
// keeps the player's rating (Glicko-2, computed by the server, which keeps nothing), the
// streak, the filters and the puzzles just seen.

import { Board, keepSpeed, showTurn } from "./board.js";
import { _ } from "./i18n.js";
import { boardAddress, fetchBoard } from "./positions.js";

const $ = (id) => document.getElementById(id);
const root = $("puzzle");
const data = JSON.parse($("puzzle-data").textContent);
const KEY = "boardlab.puzzles";
const PAUSE = 600; // ms before the opponent's reply
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

let puzzle = null; // the puzzle as the server describes it
let view = null; // the position on the board
let node = null; // the step of the tree where the solver acts now
let path = []; // the actions played from the puzzle's position
let phase = "loading"; // loading, solving, replying, solved, failed, shown
let busy = false;
let rated = false; // this puzzle's attempt already counted
let change = null; // the last attempt: { before, after }

// ---------------------------------------------------------------- what the browser keeps
function kept() {
  try {
    const found = JSON.parse(localStorage.getItem(KEY) || "{}");
    return found && typeof found === "object" ? found : {};
  } catch {
    return {};
  }
}

function keep(values) {
  localStorage.setItem(KEY, JSON.stringify({ ...kept(), ...values }));
}

function rating() {
  const r = kept().rating;
  return r && typeof r.rating === "number" ? r : { rating: 1500, deviation: 350, volatility: 0.06 };
}

const streakMode = () => kept().mode === "streak";

// A signed-in player's rating is the account's, wherever they sign in.
if (data.player) keep({ rating: data.player });

// ---------------------------------------------------------------- the board
keepSpeed($("speed"));
const board = new Board($("board"), {
  play: (action) => answer(action),
  say: (text) => say(text, "error"),
  changed: () => renderStatus(),
});

function stepOf(tree) {
  return tree === null ? null : tree;
}

async function answer(action) {
  if (phase !== "solving" || busy) return;
  const answers = node.answers || {};
  if (!(action in answers)) return wrong(action);
  say("");
  const next = await ask([action]);
  if (!next) return;
  path.push(action);
  await show(next);
  let step = stepOf(answers[action]);
  while (step && step.reply !== undefined) {
    phase = "replying";
    render();
    await sleep(PAUSE);
    const replied = await ask([step.reply]);
    if (!replied) return;
    path.push(step.reply);
    await show(replied);
    step = stepOf(step.then);
  }
  if (step === null) return solved();
  node = step;
  phase = "solving";
  render();
  board.refocus();
}

async function wrong(action) {
  phase = "failed";
  const failedPath = [...path];
  render();
  verdict(_("Not the best:"), _("Asking the solver why…"), "wrong");
  attempt(false);
  endStreak();
  try {
    const why = await getJSON(`/api/puzzles/${encodeURIComponent(puzzle.id)}/why?${query({ path: failedPath, action })}`);
    verdict(_("Not the best:"), why.sentence, "wrong");
  } catch (error) {
    verdict(_("Not the best:"), _("{action} is not the best move here.", { action }) + ` (${error.message})`, "wrong");
  }
  root.dataset.explained = "true";
  $("solution").focus();
}

async function solved() {
  phase = "solved";
  render();
  verdict(_("Solved!"), _("Every move was the best."), "right");
  if (streakMode()) {
    const streak = (kept().streak || 0) + 1;
    keep({ streak, best: Math.max(streak, kept().best || 0) });
  }
  await attempt(true);
  if (streakMode()) {
    await sleep(1200);
    if (phase === "solved") return next();
  }
  $("next").focus();
}

function endStreak() {
  if (!streakMode()) return;
  const streak = kept().streak || 0;
  keep({ streak: 0 });
  renderScores();
  if (streak) say(_("The streak ends at {n}.", { n: streak }), "info");
}

async function attempt(wasSolved) {
  if (rated) return;
  rated = true;
  const before = rating();
  try {
    const found = await postJSON(`/api/puzzles/${encodeURIComponent(puzzle.id)}/attempt`, { rating: before, solved: wasSolved });
    keep({ rating: found.rating });
    change = { before: Math.round(found.before), after: Math.round(found.rating.rating) };
  } catch (error) {
    say(error.message, "error");
  }
  root.dataset.rated = "true";
  renderScores();
}

$("solution").onclick = async () => {
  // The rest of the solution from the position on the board: the first right answer at
  // each step, with the replies.
  const line = [];
  let step = node;
  while (step) {
    if (step.reply !== undefined) {
      line.push(step.reply);
      step = step.then;
    } else {
      const [first, after] = Object.entries(step.answers)[0];
      line.push(first);
      step = after;
    }
  }
  phase = "shown";
  render();
  for (const action of line) {
    const next = await ask([action]);
    if (!next) return;
    path.push(action);
    await show(next);
    render();
    await sleep(PAUSE / 2);
  }
  $("next").focus();
};

$("next").onclick = () => next();

// ---------------------------------------------------------------- asking the server
function query(values) {
  const found = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    for (const item of [].concat(value)) if (item !== undefined && item !== null && item !== "") found.append(name, item);
  }
  return found.toString();
}

async function getJSON(address, options = {}) {
  let response;
  try {
    response = await fetch(address, { headers: { Accept: "application/json", "Content-Type": "application/json" }, ...options });
  } catch {
    throw new Error(_("The server cannot be reached; try again in a moment."));
  }
  const found = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(found.error || _("the server answered {status}", { status: response.status }));
  return found;
}

function postJSON(address, body) {
  return getJSON(address, { method: "POST", body: JSON.stringify(body) });
}

async function ask(actions) {
  busy = true;
  render();
  try {
    return await fetchBoard(view, actions);
  } catch (error) {
    say(error.message, "error");
    return null;
  } finally {
    busy = false;
  }
}

async function show(next) {
  board.live = false;
  await board.animate(next.last.notes, renderStatus);
  view = next;
  renderNotes();
}

function filters() {
  return { game: $("filter-game").value, theme: $("filter-theme").value };
}

async function next() {
  phase = "loading";
  busy = true;
  render();
  const seen = Array.isArray(kept().seen) ? kept().seen : [];
  const wanted = filters();
  history.replaceState(null, "", `/puzzles${query(wanted) ? "?" + query(wanted) : ""}`);
  $("title").textContent = _("Puzzles");
  root.dataset.mode = "next";
  try {
    const found = await getJSON(`/api/puzzles/next?${query({ ...wanted, rating: Math.round(rating().rating), exclude: seen.slice(-40) })}`);
    busy = false;
    start(found);
  } catch (error) {
    busy = false;
    phase = "empty";
    puzzle = null;
    $("task-words").textContent = error.message;
    render();
  }
}

function start(found) {
  puzzle = found;
  view = found.start;
  node = found.tree;
  path = [];
  rated = false;
  change = null;
  root.dataset.rated = "false";
  root.dataset.explained = "false";
  phase = "solving";
  const seen = (Array.isArray(kept().seen) ? kept().seen : []).filter((id) => id !== found.id);
  keep({ seen: [...seen, found.id].slice(-40) });
  say("");
  $("verdict").hidden = true;
  board.selected = [];
  renderNotes();
  render();
}

// ---------------------------------------------------------------- drawing
function render() {
  root.dataset.phase = phase;
  root.dataset.id = puzzle ? puzzle.id : "";
  root.dataset.ready = String(phase === "solving" && !busy && !board.moving);
  const solving = phase === "solving" && !busy;
  board.legal = view && solving ? view.legal : [];
  board.live = Boolean(view) && solving;
  board.player = view && view.to_act !== null ? view.players[view.to_act] : "";
  board.due = view ? view.due : "";
  if (view && !board.moving) board.draw(view.svg);
  board.buttons($("buttons"), Boolean(view) && phase === "solving", busy);
  renderStatus();
  renderTask();
  renderScores();
  renderPlayers();
  $("solution").hidden = phase !== "failed";
  $("next").disabled = phase === "loading" || phase === "replying" || (busy && phase !== "empty");
}

// Both players with their points and what they hold (a score to reach decides many
// puzzles), the one to act marked.
function renderPlayers() {
  const box = $("players");
  box.replaceChildren();
  if (!view) return;
  view.players.forEach((name, k) => {
    const row = document.createElement("div");
    row.className = "player" + (view.to_act === k ? " to-act" : "");
    row.style.setProperty("--who", view.colours[k]);
    const title = document.createElement("div");
    title.className = "name";
    title.textContent = name;
    if (puzzle && puzzle.player === k) {
      const you = document.createElement("small");
      you.textContent = " " + _("you");
      title.append(you);
    }
    const tallies = document.createElement("div");
    tallies.className = "tallies";
    tallies.textContent = view.tallies[k].join(" · ");
    row.append(title, tallies);
    box.append(row);
  });
}

function renderStatus() {
  const status = $("status");
  if (!view) {
    status.className = "status";
    status.textContent = phase === "loading" ? _("A puzzle is on its way…") : "";
    return;
  }
  if (phase === "replying" && !board.moving) {
    status.className = "status";
    status.textContent = _("The opponent answers…");
    return;
  }
  if ((phase === "solved" || phase === "shown") && !board.moving) {
    status.className = "status over";
    status.textContent = phase === "solved" ? _("Solved!") : _("The solution");
    return;
  }
  showTurn(status, view, board);
}

function renderTask() {
  if (!puzzle) return;
  $("task-words").textContent = puzzle.task;
  $("task-head").textContent = _("Your task");
  $("puzzle-game").textContent = puzzle.name;
  $("puzzle-rating").textContent = _("Puzzle rating {rating}", { rating: puzzle.rating });
  const themes = $("themes");
  themes.innerHTML = "";
  for (const theme of puzzle.themes) {
    const chip = document.createElement("span");
    chip.className = "theme";
    chip.textContent = theme.words;
    themes.append(chip);
  }
  $("task").classList.toggle("past", phase !== "solving" && phase !== "replying");
  $("own-link").href = puzzle.link;
  $("analyse").href = boardAddress(`/analysis/${puzzle.game}`, view || puzzle.start);
}

function renderScores() {
  $("rating").textContent = String(Math.round(rating().rating));
  const shown = $("rating-change");
  if (change) {
    const diff = change.after - change.before;
    shown.textContent = `${change.before} → ${change.after} (${diff >= 0 ? "+" : ""}${diff})`;
    shown.className = `change ${diff >= 0 ? "up" : "down"}`;
  } else {
    shown.textContent = "";
  }
  $("streak").textContent = String(kept().streak || 0);
  $("best-streak").textContent = String(kept().best || 0);
  $("streak-box").classList.toggle("on", streakMode());
  $("mode-rated").setAttribute("aria-pressed", String(!streakMode()));
  $("mode-streak").setAttribute("aria-pressed", String(streakMode()));
  $("mode-rated").classList.toggle("quiet", streakMode());
  $("mode-streak").classList.toggle("quiet", !streakMode());
}

function renderNotes() {
  const notes = $("notes");
  notes.innerHTML = "";
  const shown = view ? view.last.notes : [];
  notes.closest("section").hidden = !shown.length;
  for (const note of shown) {
    const item = document.createElement("li");
    item.textContent = note.text;
    notes.append(item);
  }
}

function verdict(head, words, kind) {
  const box = $("verdict");
  box.hidden = false;
  box.className = `verdict-box ${kind}`;
  box.innerHTML = "";
  const strong = document.createElement("strong");
  strong.textContent = head;
  box.append(strong, " ", words);
}

function say(text, kind = "info") {
  const box = $("message");
  box.textContent = text;
  box.className = `message ${kind}`;
}

// ---------------------------------------------------------------- filters and modes
function fillThemes(chosen) {
  const select = $("filter-theme");
  const game = $("filter-game").value;
  const themes = new Map();
  for (const g of data.games) {
    if (!game || g.id === game) for (const t of g.themes) themes.set(t.id, t.words);
  }
  select.innerHTML = "";
  const any = document.createElement("option");
  any.value = "";
  any.textContent = _("All themes");
  select.append(any);
  for (const [id, words] of [...themes.entries()].sort((a, b) => a[1].localeCompare(b[1]))) {
    const option = document.createElement("option");
    option.value = id;
    option.textContent = words;
    select.append(option);
  }
  select.value = themes.has(chosen) ? chosen : "";
}

function keepFilters() {
  keep({ filters: filters() });
}

$("filter-game").onchange = () => {
  fillThemes($("filter-theme").value);
  keepFilters();
  next();
};
$("filter-theme").onchange = () => {
  keepFilters();
  next();
};
$("filters").onsubmit = (event) => event.preventDefault();

function setMode(streak) {
  if (streak === streakMode()) return;
  keep({ mode: streak ? "streak" : "rated", streak: 0 });
  renderScores();
  if (streak) next();
}
$("mode-rated").onclick = () => setMode(false);
$("mode-streak").onclick = () => setMode(true);

// ---------------------------------------------------------------- the start
const address = new URLSearchParams(location.search);
const keptFilters = kept().filters || {};
const game = address.get("game") ?? keptFilters.game ?? "";
const known = data.games.some((g) => g.id === game && g.count);
$("filter-game").value = known ? game : "";
fillThemes(address.get("theme") ?? keptFilters.theme ?? "");
if (data.puzzle) start(data.puzzle);
else next();
