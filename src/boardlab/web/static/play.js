// The game page: the board the server drew, made clickable from the anatomy of the
// legal actions (the places a person clicks for each), kept live over a WebSocket.
// Every action goes to the server, which checks it, stores it and only then answers.

import { Board, keepSpeed } from "./board.js";
import { _, ngettext, number } from "./i18n.js";
import { boardAddress } from "./positions.js";

const root = document.getElementById("play");
const gameId = root.dataset.id;
let state = JSON.parse(document.getElementById("state").textContent);
let busy = false; // a request is on its way
let hint = null;
let animating = Promise.resolve();
let browsing = null; // an earlier position on show instead of the game's: { ply, board }
let clears = null; // what makes the message shown go: "state" (a newer one), "connection"
let socket = null; // the live connection, which also carries the chat
let chat = []; // the lines of chat so far, in order

const $ = (id) => document.getElementById(id);
const title = document.title;
keepSpeed($("speed"));
// The board, clicked: an action found is played; a click that is none is told why.
const board = new Board($("board"), { play: (action) => play(action), say: (text) => say(text, text ? "error" : "info"), changed: () => render() });
// A player as the page shows it (the players' ids are data; their names are words).
const nameOf = (player) => state.seats[player].name;

// ------------------------------------------------------------------ talking to the server
// Changes go over the live socket when it is open, each with an id that the server's
// ack (once the change is stored) or error answers; over HTTP while it is not.
let nextId = 1;
const waiting = new Map(); // id -> the promise's resolve, until the answer comes

function ask(type, body) {
  return new Promise((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    socket.send(JSON.stringify({ type, id, ...body }));
  });
}

function answered(message) {
  const resolve = waiting.get(message.id);
  if (!resolve) return false;
  waiting.delete(message.id);
  resolve(message);
  return true;
}

async function send(path, body) {
  busy = true;
  render();
  try {
    if (path !== "hint" && socket && socket.readyState === WebSocket.OPEN) {
      const answer = await ask(path, body);
      if (answer.type === "error") {
        say(answer.message, "error", answer.status === 409 ? "state" : null);
        if (answer.status === 409) await reload();
        return null;
      }
      return {}; // the change itself came as an event, before the ack
    }
    const response = await fetch(`/api/games/${gameId}/${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    });
    const answered = _("the server answered {status}", { status: response.status });
    const data = await response.json().catch(() => ({ error: answered }));
    if (!response.ok) {
      say(data.error || answered, "error", response.status === 409 ? "state" : null);
      if (response.status === 409) await reload();
      return null;
    }
    return data;
  } catch (error) {
    say(_("The server cannot be reached; your game is stored, try again in a moment."), "error", "connection");
    return null;
  } finally {
    busy = false;
    render();
  }
}

async function reload() {
  const response = await fetch(`/api/games/${gameId}`, { headers: { Accept: "application/json" } });
  if (response.ok) await show(await response.json());
}

async function play(action) {
  board.selected = [];
  hint = null;
  say("");
  const data = await send("play", { action, ply: state.ply });
  if (data && data.ply !== undefined) await show(data);
}

// What only this page may do, worked out from the seats it holds (``welcome``): the
// server sends every page the same state.
function mine(next) {
  const acts = next.to_act !== null && you.includes(next.to_act) && next.open_seat === null;
  return {
    ...next,
    you,
    you_act: acts,
    can_chat: next.online && you.length > 0,
    can_undo: you.length > 0 && next.undoable,
  };
}
let you = state.you;

function connect() {
  // The page says which version it holds: it is sent only what it missed.
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/games/${gameId}?since=${state.revision}`);
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "welcome") {
      you = message.you;
      if (clears === "connection") say("");
    }
    else if (message.type === "state") show(mine(message.state));
    else if (message.type === "status") status(message);
    else if (message.type === "chat") hear(message.lines);
    else if (message.type === "ack") answered(message);
    else if (message.type === "error" && !answered(message)) say(message.message, "error");
  };
  const ping = setInterval(() => socket.readyState === 1 && socket.send('{"type":"ping"}'), 25000);
  socket.onclose = () => {
    clearInterval(ping);
    for (const resolve of waiting.values()) {
      resolve({ type: "error", status: 0, message: _("The server cannot be reached; your game is stored, try again in a moment.") });
    }
    waiting.clear();
    setTimeout(connect, 1500);
  };
}

function status(message) {
  // The AI thinking or not, a player away or back: no change to the game itself.
  animating = animating.then(() => {
    if (message.v !== state.revision) return;
    const { thinking, trouble, away, claim_from, watching } = message;
    state = { ...state, thinking, trouble, away, claim_from, watching };
    render();
  });
}

// ------------------------------------------------------------------ the chat
// Lines come over the socket: the history when it opens (again after a reconnect), then
// each new one, the player's own included. They are shown as text, never as markup.
function hear(lines) {
  const known = new Set(chat.map((line) => line.n));
  chat = chat.concat(lines.filter((line) => !known.has(line.n))).sort((a, b) => a.n - b.n);
  renderChat();
}

const speaker = (seat) => state.seats[seat].player || nameOf(seat);

function renderChat() {
  $("chat").hidden = !state.can_chat;
  const list = $("chat-lines");
  list.replaceChildren(
    ...chat.map((line) => {
      const item = document.createElement("li");
      item.className = state.you.includes(line.seat) ? "mine" : "theirs";
      item.style.setProperty("--who", state.colours[line.seat]);
      const who = document.createElement("strong");
      who.textContent = speaker(line.seat);
      item.append(who, " ", line.text);
      return item;
    }),
  );
  list.scrollTop = list.scrollHeight;
}

$("chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("chat-text").value.trim();
  if (!text) return;
  const send = () => {
    socket.send(JSON.stringify({ type: "chat", text }));
    $("chat-text").value = "";
  };
  // A page just opened (or reconnecting) sends the line once its connection is open.
  if (socket && socket.readyState === WebSocket.CONNECTING) {
    socket.addEventListener("open", send, { once: true });
    return;
  }
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    say(_("The server cannot be reached; try again in a moment."), "error", "connection");
    return;
  }
  send();
});

// ------------------------------------------------------------------ sounds
// Short tones made here (no files): a move, a capture, your turn, your time running low.
// On unless the player switched them off (kept in the browser); a browser plays sound
// only after the page has been clicked or typed in once.
let sounds = localStorage.getItem("boardlab.sounds") !== "off";
let audio = null;
$("sounds").checked = sounds;
$("sounds").addEventListener("change", () => {
  sounds = $("sounds").checked;
  localStorage.setItem("boardlab.sounds", sounds ? "on" : "off");
});
const TONES = {
  move: [[520, 0.07]],
  capture: [[660, 0.07], [440, 0.11]],
  turn: [[587, 0.09], [880, 0.14]],
  low: [[988, 0.08], [988, 0.08]],
};

function sound(kind) {
  if (!sounds) return;
  root.dataset.sound = kind; // the last sound, for tests and tools
  try {
    audio = audio || new AudioContext();
    let at = audio.currentTime;
    for (const [pitch, length] of TONES[kind]) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = pitch;
      gain.gain.setValueAtTime(0.12, at);
      gain.gain.exponentialRampToValueAtTime(0.001, at + length);
      tone.connect(gain).connect(audio.destination);
      tone.start(at);
      tone.stop(at + length);
      at += length + 0.03;
    }
  } catch (error) {
    // no sound here (no audio device, or the browser refuses): the game goes on
  }
}

// ------------------------------------------------------------------ earlier positions
// A click on an action in the move list shows the position after it (drawn by the
// server, a chunk at a time, as the review page does); the arrow keys step, End or
// "Back to the game" returns. Meanwhile the game goes on: new actions come in the list.
const CHUNK = 50;
const boards = new Map(); // ply -> board
async function boardAt(ply) {
  if (!boards.has(ply)) {
    const first = ply - (ply % CHUNK);
    const response = await fetch(`/api/games/${gameId}/positions?start=${first}&count=${CHUNK}`, { headers: { Accept: "application/json" } });
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || response.statusText);
    if (boards.size > 200) boards.clear();
    for (const board of data.boards) boards.set(board.ply, board);
  }
  return boards.get(ply);
}

async function browse(ply) {
  if (ply >= state.ply || ply < 0) return back();
  try {
    const board = await boardAt(ply);
    browsing = { ply, board };
  } catch (error) {
    say(error.message || String(error), "error", "state");
  }
  render();
}

function back() {
  if (!browsing) return;
  browsing = null;
  render();
}

// ------------------------------------------------------------------ showing a state
function show(next) {
  // States may arrive twice (an HTTP answer and the socket); a state never goes back.
  // One from the socket carries the move list from the first turn it changed.
  animating = animating.then(async () => {
    if (next.revision < state.revision) return; // an answer overtaken by a newer change
    if (next.moves_from > 0) {
      if (next.moves_from > state.moves.length) {
        reload(); // a gap: ask for the whole state (after this one has passed)
        return;
      }
      next = { ...next, moves: state.moves.slice(0, next.moves_from).concat(next.moves) };
    }
    if (next.svg_lines) {
      // The board as the lines that changed since the version this page holds (an
      // HTTP answer may have shown this version whole already).
      const known = next.revision === state.revision;
      if (!known && next.svg_base !== state.revision) {
        reload();
        return;
      }
      const lines = state.svg.split("\n");
      if (!known) for (const [k, line] of Object.entries(next.svg_lines)) lines[k] = line;
      next = { ...next, svg: lines.join("\n") };
    }
    const same = (key) => JSON.stringify(next[key]) === JSON.stringify(state[key]);
    if (next.revision === state.revision && ["thinking", "trouble", "away", "claim_from", "watching"].every(same)) return;
    const fresh = next.ply > state.ply && next.ply - state.ply <= 8;
    const wasMine = mine(state).you_act; // (the state in the page as first drawn says it for anyone)
    const notes = fresh ? next.last.notes.filter((n) => n.ply >= state.ply) : [];
    if (next.ply !== state.ply) {
      board.selected = [];
      hint = null;
    }
    if (!browsing) await board.animate(notes, () => render());
    if (fresh) sound(notes.some((n) => n.kind === "capture") ? "capture" : "move");
    // The player who offered a draw learns when it was declined (not when a move voided it).
    const declined = (offer) => you.includes(state[offer]) && next[offer] === null && next.ply === state.ply && !next.outcome;
    const drawDeclined = declined("draw_offer");
    const takebackDeclined = declined("takeback_offer");
    state = next;
    clockAt = Date.now();
    if (clears === "state") say("");
    if (drawDeclined) say(_("{player} declined your draw offer.", { player: nameOf(1 - you[0]) }));
    if (takebackDeclined) say(_("{player} declined your takeback.", { player: nameOf(1 - you[0]) }));
    const hotSeat = !state.online && state.seats.every((s) => s.human);
    if (fresh && mine(state).you_act && !wasMine && !hotSeat) setTimeout(() => sound("turn"), 250);
    if (fresh) lowTold = false;
    render();
  });
  return animating;
}

function render() {
  // The ply and whether the page waits for someone are in the page for tests and tools.
  root.dataset.ply = state.ply;
  root.dataset.ready = String(state.you_act && !busy && !board.moving && !browsing);
  root.dataset.browsing = browsing ? String(browsing.ply) : "";
  document.title = state.you_act && !state.outcome ? "● " + _("Your turn") + " · " + title : title;
  board.legal = browsing ? [] : state.legal;
  board.live = state.you_act && !busy && !browsing;
  board.player = state.to_act === null ? "" : nameOf(state.to_act);
  board.due = state.due;
  board.hinted = (hint && hint.places) || [];
  if (!board.moving) board.draw(browsing ? browsing.board.svg : state.svg);
  // The position on show, on the analysis board.
  const shownPosition = browsing ? browsing.board.position : state.position;
  $("analyse").href = boardAddress(`/analysis/${state.game}`, { position: shownPosition, options: state.options });
  renderStatus();
  renderPlayers();
  renderButtons();
  renderMoves();
  renderNotes();
  renderHint();
  $("undo").hidden = $("hint-button").hidden = state.online || !state.you.length;
  $("resign").hidden = !state.you.length;
  // Abort: a player's, while the game online has not really begun (the server says).
  $("abort").hidden = !state.abortable || !state.you.length;
  $("abort").disabled = busy;
  $("typed").hidden = !state.you.length;
  $("watching").hidden = state.you.length > 0;
  if ($("invitation")) $("invitation").hidden = state.open_seat === null || !!state.outcome;
  renderDraw();
  renderTakeback();
  renderClocks();
  renderChat();
  // (a game aborted while it waited for an opponent has nobody to play again)
  $("rematch").hidden = !state.outcome || !state.you.length || state.open_seat !== null;
  $("rematch-button").textContent = state.rematch ? _("Play the rematch") : _("Rematch, sides swapped");
  $("undo").disabled = busy || !state.can_undo;
  $("hint-button").disabled = busy || !state.you_act;
  $("resign").disabled = busy || state.outcome !== null || !state.seats.some((s) => s.human);
  $("typed-action").disabled = !state.you_act || !!board.moving || !!browsing;
}

function renderStatus() {
  const status = $("status");
  status.className = "status";
  if (browsing) {
    // An earlier position: which, and the way back.
    status.textContent = browsing.ply === 0 ? _("The start of the game") : _("After action {ply} of {length}", { ply: browsing.ply, length: state.ply });
    const live = document.createElement("button");
    live.type = "button";
    live.className = "quiet skip";
    live.id = "back-to-game";
    live.textContent = _("Back to the game");
    live.onclick = back;
    status.append(" ", live);
    return;
  }
  if (board.moving) {
    // What the board shows now, and a way past it.
    status.textContent = board.moving.note.text;
    const skip = document.createElement("button");
    skip.type = "button";
    skip.className = "quiet skip";
    skip.id = "skip";
    skip.textContent = _("Skip");
    skip.onclick = () => board.skip();
    status.append(" ", skip);
    return;
  }
  if (state.outcome) {
    status.textContent = state.outcome.sentence;
    status.classList.add("over");
    return;
  }
  const player = nameOf(state.to_act);
  const seat = state.seats[state.to_act];
  status.style.setProperty("--who", state.colours[state.to_act]);
  status.classList.add("turn");
  if (!seat.human && state.trouble) {
    status.textContent = _("{player}: {trouble}. Reload the page to try again.", { player, trouble: state.trouble });
    status.classList.add("trouble");
    return;
  }
  if (!seat.human) {
    status.innerHTML = "";
    status.append(dot(state.colours[state.to_act]), _("{player}, the AI ({level}), is thinking", { player, level: seat.spec }));
    const dots = document.createElement("span");
    dots.className = "thinking";
    dots.textContent = "…";
    status.append(dots);
    return;
  }
  if (state.open_seat !== null) {
    status.textContent = _("Waiting for an opponent: send the invitation link.");
    return;
  }
  if (!state.you_act) {
    status.innerHTML = "";
    status.append(dot(state.colours[state.to_act]), _("{player} is to play", { player }));
    return;
  }
  const whose = state.seats.every((s) => s.human) && !state.online ? player : _("Your turn, {player}", { player });
  status.innerHTML = "";
  // What is due stands out: a several-action turn says which part comes now and how
  // far it reaches (a follow-up of 3 rows, a bonus move).
  const due = document.createElement("span");
  due.className = "due";
  due.id = "due";
  due.textContent = state.due;
  status.append(dot(state.colours[state.to_act]), `${whose}:`, due);
  if (board.selected.length) status.append(` — ${board.selected.join(" → ")} …`);
}

// The clocks: the server's count when the state came, the player to act's running down
// here between updates (the server decides a loss on time, not this page).
let clockAt = Date.now();
let lowTold = false; // the sound for time running low, once a turn
function renderClocks() {
  renderClaim();
  if (!state.clock) return;
  for (const element of document.querySelectorAll("#players .clock")) {
    const k = Number(element.dataset.player);
    let left = state.clock.left[k];
    if (state.clock.running === k) left -= Date.now() - clockAt;
    left = Math.max(0, left);
    const seconds = Math.ceil(left / 1000);
    const text = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
    element.textContent = text;
    element.classList.toggle("running", state.clock.running === k);
    element.classList.toggle("low", left < 10000);
    if (left < 10000 && state.clock.running === k && you.includes(k) && !lowTold) {
      lowTold = true;
      sound("low");
    }
  }
}
setInterval(renderClocks, 250);

function renderDraw() {
  // A draw between two people online: offered by one, answered by the other.
  const mine = askingSeat();
  const live = mine !== null;
  $("draw").hidden = !live || state.draw_offer !== null;
  $("draw").disabled = busy;
  const box = $("draw-offer");
  box.hidden = !live || state.draw_offer === null;
  if (box.hidden) return;
  const theirs = state.draw_offer !== mine;
  $("draw-offer-text").textContent = theirs
    ? _("{player} offers a draw.", { player: nameOf(state.draw_offer) })
    : _("You offered a draw: waiting for the answer.");
  $("draw-answer").hidden = !theirs;
}

function askingSeat() {
  // The seat this page asks the other player from (a draw, a takeback, the win): a
  // player's of a game online that goes on with both seated, else null.
  const mine = state.you.length === 1 ? state.you[0] : null;
  return state.online && mine !== null && !state.outcome && state.open_seat === null ? mine : null;
}

function renderClaim() {
  // An opponent online who has left: a minute on (the server's count), the win may be
  // claimed. The page counts down with the server's moment, told when they left.
  const mine = askingSeat();
  const from = mine === null ? null : (state.claim_from || [])[1 - mine];
  $("claim").hidden = from === null || from === undefined;
  if ($("claim").hidden) return;
  const wait = Math.ceil((from - Date.now()) / 1000);
  const player = nameOf(1 - mine);
  $("claim-text").textContent =
    wait > 0
      ? _("{player} has left the game. If they do not come back, you may claim the win in {seconds} s.", { player, seconds: wait })
      : _("{player} has left the game and has not come back.", { player });
  $("claim-button").hidden = wait > 0;
  $("claim-button").disabled = busy;
}

function renderTakeback() {
  // A takeback between two people online: asked by one who has played, answered by
  // the other.
  const mine = askingSeat();
  const live = mine !== null;
  const played = state.moves.some((turn) => turn.player === mine);
  $("takeback").hidden = !live || !played || state.takeback_offer !== null;
  $("takeback").disabled = busy || !!board.moving;
  const box = $("takeback-offer");
  box.hidden = !live || state.takeback_offer === null;
  if (box.hidden) return;
  const theirs = state.takeback_offer !== mine;
  $("takeback-offer-text").textContent = theirs
    ? _("{player} asks to take back their last move.", { player: nameOf(state.takeback_offer) })
    : _("You asked to take back your last move: waiting for the answer.");
  $("takeback-answer").hidden = !theirs;
}

function dot(colour) {
  const span = document.createElement("span");
  span.className = "dot";
  span.style.background = colour;
  return span;
}

function renderPlayers() {
  const box = $("players");
  box.innerHTML = "";
  state.seats.forEach((seatOf, k) => {
    const row = document.createElement("div");
    row.className = "player" + (state.to_act === k ? " to-act" : "");
    row.style.setProperty("--who", state.colours[k]);
    const title = document.createElement("div");
    title.className = "name";
    title.append(dot(state.colours[k]), seatOf.name, " ");
    const seat = document.createElement("small");
    const you = state.online && state.you.includes(k);
    if (state.open_seat === k) seat.textContent = _("an open seat");
    else if (!seatOf.human) seat.textContent = seatOf.label;
    else if (seatOf.player) seat.textContent = you ? _("{name} (you)", { name: seatOf.player }) : seatOf.player;
    else seat.textContent = you ? _("you") : _("person");
    title.append(seat);
    if ((state.away || []).includes(k)) {
      const away = document.createElement("small");
      away.className = "away";
      away.textContent = _("away");
      title.append(" ", away);
    }
    if (state.clock) {
      const time = document.createElement("span");
      time.className = "clock";
      time.dataset.player = k;
      title.append(" ", time);
    }
    const tallies = document.createElement("div");
    tallies.className = "tallies";
    tallies.textContent = state.tallies[k].join(" · ");
    row.append(title, tallies);
    box.append(row);
  });
  if (state.watching) {
    const watching = document.createElement("p");
    watching.className = "game-note";
    watching.id = "watching-count";
    watching.textContent = ngettext("{n} spectator", "{n} spectators", state.watching);
    box.append(watching);
  }
  for (const note of state.notes) {
    const p = document.createElement("p");
    p.className = "game-note";
    p.textContent = note;
    box.append(p);
  }
}

function renderButtons() {
  board.buttons($("buttons"), state.you_act && !browsing, busy);
}

function renderMoves() {
  // Each action is a button that shows the position after it.
  const list = $("moves");
  list.innerHTML = "";
  for (const turn of state.moves) {
    const item = document.createElement("li");
    item.value = turn.number;
    item.append(dot(state.colours[turn.player]));
    turn.actions.forEach((action, k) => {
      const ply = turn.first_ply + k + 1;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "action";
      button.dataset.ply = ply;
      button.textContent = action;
      if (browsing ? browsing.ply === ply : ply === state.ply) button.setAttribute("aria-current", "true");
      button.onclick = () => browse(ply);
      item.append(button, " ");
    });
    list.append(item);
  }
  if (!browsing) list.scrollTop = list.scrollHeight;
}

function renderNotes() {
  const list = $("notes");
  list.innerHTML = "";
  for (const note of state.last.notes) {
    const item = document.createElement("li");
    item.textContent = note.text;
    list.append(item);
  }
}

function renderHint() {
  const box = $("hint");
  box.textContent = "";
  if (!hint) return;
  if (hint.waiting) {
    box.textContent = _("The AI is looking for a hint…");
    return;
  }
  const chance = Math.round(50 * ((hint.value ?? 0) + 1));
  box.textContent = _("Hint: {action} (evaluation {value} for {player}, about {chance}% expected; line {line})", {
    action: hint.action,
    value: number(hint.value ?? 0, 2),
    player: nameOf(state.players.indexOf(hint.player)),
    chance,
    line: hint.line.join(" "),
  });
}

// ------------------------------------------------------------------ commands
$("typed").addEventListener("submit", (event) => {
  event.preventDefault();
  const field = $("typed-action");
  const text = field.value.trim();
  if (!text) return say(_("Type an action, such as {example}", { example: state.legal[0]?.action ?? "…" }), "error");
  field.value = "";
  play(text);
});
$("undo").onclick = async () => {
  const data = await send("undo", { ply: state.ply });
  if (data) {
    say(_("Taken back."));
    if (data.ply !== undefined) await show(data);
  }
};
$("resign").onclick = async () => {
  if (!confirm(_("Resign this game?"))) return;
  const data = await send("resign", { ply: state.ply });
  if (data && data.ply !== undefined) await show(data);
};
$("abort").onclick = async () => {
  if (!confirm(_("Abort this game? It ends with no result: nobody wins or loses."))) return;
  const data = await send("abort", { ply: state.ply });
  if (data && data.ply !== undefined) await show(data);
};
async function answerDraw(answer) {
  const data = await send("draw", { ply: state.ply, answer });
  if (data && data.ply !== undefined) await show(data);
}
$("draw").onclick = () => answerDraw("offer");
async function answerTakeback(answer) {
  const data = await send("takeback", { ply: state.ply, answer });
  if (data && data.ply !== undefined) await show(data);
}
$("takeback").onclick = () => answerTakeback("offer");
$("claim-button").onclick = async () => {
  const data = await send("claim", { ply: state.ply });
  if (data && data.ply !== undefined) await show(data);
};
$("takeback-accept").onclick = () => answerTakeback("accept");
$("takeback-decline").onclick = () => answerTakeback("decline");
$("draw-accept").onclick = () => answerDraw("accept");
$("draw-decline").onclick = () => answerDraw("decline");
$("hint-button").onclick = async () => {
  hint = { waiting: true };
  renderHint();
  const data = await send("hint", { ply: state.ply });
  hint = data;
  render();
};
document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, select, textarea")) return;
  // The arrow keys step through earlier positions, End comes back to the game.
  const at = browsing ? browsing.ply : state.ply;
  if (event.key === "ArrowLeft" && at > 0) browse(at - 1);
  if (event.key === "ArrowRight" && browsing) browse(at + 1);
  if (event.key === "Home" && state.ply > 0) browse(0);
  if (event.key === "End" || (event.key === "Escape" && browsing)) back();
  if (["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) event.preventDefault();
  if (event.key === "u") $("undo").click();
  if (event.key === "h") $("hint-button").click();
});

function say(text, kind = "info", until = null) {
  // ``until``: what makes the message go by itself (a newer state, the connection back).
  const box = $("message");
  box.textContent = text;
  box.className = `message ${kind}`;
  clears = until;
}

render();
connect();
