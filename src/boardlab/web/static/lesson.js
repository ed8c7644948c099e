// A lesson: a prepared position and, step by step, the action asked for. A legal action
// that is not the one asked for is explained, not played; the one asked for is played
// by the server (which checks it and narrates it), shown, and explained, and the other
// side's reply, if the lesson has one, comes with "Continue". A lesson done is kept in
// the browser.

import { Board, keepSpeed, showTurn } from "./board.js";
import { _ } from "./i18n.js";
import { markDone } from "./progress.js";
import { boardAddress, fetchBoard } from "./positions.js";

const $ = (id) => document.getElementById(id);
const root = $("lesson");
const lesson = JSON.parse($("lesson-data").textContent);
let view = lesson.start; // the position on the board: the server's view of it
let step = 0; // the step asked for or explained
let phase = "asking"; // "asking", "explained" (Continue comes next), "done"
let busy = false; // a request is on its way

keepSpeed($("speed"));
const board = new Board($("board"), {
  play: (action) => attempt(action),
  say: (text) => say(text, "error"),
  changed: () => renderStatus(),
});

async function attempt(action) {
  const asked = lesson.steps[step];
  if (asked.accept.length && !asked.accept.includes(action)) {
    say(asked.wrong || _("That move is legal, but it is not the one this lesson asks for."), "error");
    return render();
  }
  say("");
  const last = step === lesson.steps.length - 1;
  // The last step's reply, if any, is played with it: nothing comes after to wait for.
  const next = await ask([action, ...(last ? asked.reply : [])]);
  if (!next) return;
  await show(next);
  phase = last ? "done" : "explained";
  if (last) markDone(lesson.game, lesson.id);
  render();
  (last ? $("next") : $("continue")).focus();
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
}

$("continue").onclick = async () => {
  const reply = lesson.steps[step].reply;
  if (reply.length) {
    const next = await ask(reply);
    if (!next) return render();
    await show(next);
  }
  step += 1;
  phase = "asking";
  render();
  board.refocus();
};

$("again").onclick = () => {
  view = lesson.start;
  step = 0;
  phase = "asking";
  board.selected = [];
  say("");
  render();
};

function render() {
  root.dataset.step = step;
  root.dataset.phase = phase;
  root.dataset.ready = String(phase === "asking" && !busy && !board.moving);
  board.legal = phase === "asking" ? view.legal : [];
  board.live = phase === "asking" && !busy;
  board.player = view.to_act === null ? "" : view.players[view.to_act];
  board.due = view.due;
  if (!board.moving) board.draw(view.svg);
  board.buttons($("buttons"), phase === "asking", busy);
  renderStatus();
  renderTask();
  const notes = $("notes");
  notes.innerHTML = "";
  notes.closest("section").hidden = !view.last.notes.length;
  for (const note of view.last.notes) {
    const item = document.createElement("li");
    item.textContent = note.text;
    notes.append(item);
  }
  $("analyse").href = boardAddress(`/analysis/${lesson.game}`, view);
}

function renderStatus() {
  const status = $("status");
  if (phase === "done" && !board.moving) {
    status.className = "status over";
    status.textContent = view.outcome ? `${_("Lesson complete!")} ${view.outcome.sentence}` : _("Lesson complete!");
    return;
  }
  showTurn(status, view, board);
}

function renderTask() {
  const asked = lesson.steps[step];
  const task = $("task");
  task.innerHTML = "";
  const heading = document.createElement("p");
  heading.className = "task-step";
  heading.textContent = lesson.steps.length > 1 ? _("Step {step} of {steps}", { step: step + 1, steps: lesson.steps.length }) : _("Your task");
  const words = document.createElement("p");
  words.className = "task-words";
  words.textContent = asked.ask;
  task.append(heading, words);
  task.classList.toggle("past", phase !== "asking");
  const explained = $("explained");
  explained.hidden = phase === "asking";
  explained.textContent = phase === "asking" ? "" : asked.explain;
  $("continue").hidden = phase !== "explained";
  $("continue").disabled = busy;
  $("next").hidden = phase !== "done";
}

function say(text, kind = "info") {
  const box = $("message");
  box.textContent = text;
  box.className = `message ${kind}`;
}

render();
