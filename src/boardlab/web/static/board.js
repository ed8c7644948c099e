// A board a person plays on by clicks, the same on every page that has one (a game, a
// lesson, the analysis board): the server draws the SVG and names, for each legal
// action, the places clicked for it in order; this turns clicks (and Enter on a
// focused place) into actions, says why a click is not one, and shows a move place by
// place. What an action then does is the page's own: `play(action)`.

import { _ } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// How fast a move is shown, place by place (a factor of the pauses; 0: at once). The
// player's choice is kept in the browser, for every page.
export const SPEEDS = { off: 0, fast: 0.35, normal: 1 };
const KEPT = "boardlab.speed";

export function speed() {
  const kept = localStorage.getItem(KEPT);
  return SPEEDS[kept] !== undefined ? kept : "normal";
}

export function keepSpeed(select) {
  // A select that shows and changes the pace kept in the browser.
  select.value = speed();
  select.addEventListener("change", () => localStorage.setItem(KEPT, select.value));
}

const startsWith = (places, prefix) => prefix.every((p, k) => places[k] === p);

export class Board {
  // `element` holds the SVG; `play(action)` plays an action (its string), `say(text)`
  // tells the person why a click is not one, and `changed()` redraws what depends on
  // the places chosen so far (the page's status line).
  constructor(element, { play, say, changed = () => {} }) {
    this.element = element;
    this.play = play;
    this.say = say;
    this.changed = changed;
    this.legal = []; // the legal actions: { action, places, label, kind }
    this.live = false; // whether this person may act now
    this.player = ""; // the name of the player to act, for the messages
    this.due = ""; // what is due, in words
    this.hinted = []; // places to make stand out
    this.selected = []; // the places clicked so far in this action
    this.moving = null; // a move being shown: { note, skip }
    element.addEventListener("click", (event) => {
      if (this.moving) {
        this.moving.skip = true;
        return;
      }
      const place = event.target.closest("[data-place]");
      if (place && this.live) this.click(place.dataset.place);
    });
    element.addEventListener("keydown", (event) => {
      const place = event.target.closest("[data-place]");
      if (place && this.live && !this.moving && (event.key === "Enter" || event.key === " ")) {
        event.preventDefault();
        this.click(place.dataset.place);
      }
      if (event.key === "Escape") {
        if (this.moving) this.moving.skip = true;
        this.selected = [];
        this.decorate();
        this.changed();
      }
    });
  }

  draw(svg) {
    // The board drawn afresh; a keyboard player keeps their place in it (or, while
    // nothing can be clicked, the board keeps the focus until something can).
    const focused = this.element.contains(document.activeElement);
    const place = document.activeElement?.closest?.("[data-place]")?.dataset.place;
    this.element.innerHTML = svg;
    this.decorate();
    if (focused) this.refocus(place);
  }

  candidates(prefix) {
    return this.legal.filter((a) => a.places.length >= prefix.length && startsWith(a.places, prefix));
  }

  decorate() {
    // Mark what can be clicked now: the first places of legal actions, or the targets
    // of the place chosen; hinted places stand out.
    if (!this.element.querySelector("svg")) return;
    const live = this.live && !this.moving;
    const selected = this.selected;
    const options = live ? this.candidates(selected) : [];
    const next = new Set(options.filter((a) => a.places.length > selected.length).map((a) => a.places[selected.length]));
    for (const place of this.element.querySelectorAll("[data-place]")) {
      const name = place.dataset.place;
      place.classList.toggle("selected", selected.includes(name));
      place.classList.toggle("selectable", next.has(name) && selected.length === 0);
      place.classList.toggle("target", next.has(name) && selected.length > 0);
      place.classList.toggle("hinted", this.hinted.includes(name));
      place.querySelector(".target-dot")?.remove();
      if (live && (next.has(name) || selected.includes(name))) {
        place.setAttribute("tabindex", "0");
        place.setAttribute("role", "button");
      } else {
        place.removeAttribute("tabindex");
        place.removeAttribute("role");
      }
      if (next.has(name) && selected.length > 0) {
        const box = place.getBBox();
        const ring = document.createElementNS(SVG, "circle");
        ring.setAttribute("class", "target-dot");
        ring.setAttribute("cx", box.x + box.width / 2);
        ring.setAttribute("cy", box.y + box.height / 2);
        ring.setAttribute("r", Math.min(box.width, box.height) * 0.16);
        place.append(ring);
      }
    }
  }

  refocus(name) {
    // The same place if it can still be clicked, else the first that can, else the board.
    const same = name === undefined ? null : this.element.querySelector(`[data-place="${CSS.escape(name)}"][tabindex]`);
    (same || this.element.querySelector("[data-place][tabindex]") || this.element).focus();
  }

  click(name) {
    this.say("");
    const selected = this.selected;
    if (selected.length && selected[selected.length - 1] === name) {
      // The chosen place again: play the action it completes, or let go of it.
      const done = this.legal.find((a) => a.places.length === selected.length && startsWith(a.places, selected));
      if (done) return this.choose(done.action);
      this.selected = selected.slice(0, -1);
      return this.redraw();
    }
    let prefix = [...selected, name];
    let found = this.candidates(prefix);
    if (!found.length && selected.length) {
      prefix = [name]; // a fresh start on another piece
      found = this.candidates(prefix);
    }
    if (!found.length) {
      this.say(this.whyNot(name));
      this.selected = [];
      return this.redraw();
    }
    const complete = found.filter((a) => a.places.length === prefix.length);
    if (complete.length === 1 && found.length === 1) return this.choose(complete[0].action);
    this.selected = prefix;
    this.redraw();
  }

  choose(action) {
    this.selected = [];
    return this.play(action);
  }

  redraw() {
    this.decorate();
    this.changed();
  }

  whyNot(name) {
    // Why a click is not the start or the next step of a legal action, in words.
    const firsts = [...new Set(this.legal.filter((a) => a.places.length).map((a) => a.places[0]))];
    const player = this.player;
    if (this.selected.length) {
      const targets = [...new Set(this.candidates(this.selected).map((a) => a.places[this.selected.length]).filter(Boolean))];
      return _("{place} is not a legal step from {path}: {player} can go to {targets}.", {
        place: name,
        path: this.selected.join(" → "),
        player,
        targets: targets.join(", "),
      });
    }
    if (!firsts.length) return _("No place to click now: {due}. Use the buttons.", { due: this.due });
    return _("{place} cannot be played now ({due}). {player} can start from {places}.", {
      place: name,
      due: this.due,
      player,
      places: firsts.join(", "),
    });
  }

  buttons(box, shown, disabled = false) {
    // Actions without places (a pass, a bonus declined) as buttons in `box`, when
    // `shown`.
    box.innerHTML = "";
    if (!shown) return;
    for (const action of this.legal.filter((a) => a.places.length === 0)) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = action.label || action.action;
      button.dataset.action = action.action;
      button.disabled = disabled;
      button.onclick = () => this.choose(action.action);
      box.append(button);
    }
  }

  async animate(notes, shown = () => {}) {
    // The pieces move on the board still shown: each place a note names lights up in
    // turn; a sowing lifts the seeds of its first place and drops them one by one. The
    // board is not drawn again meanwhile, nor clicked: a click skips to the end.
    // `shown(note)` is told each note as it starts.
    const pace = SPEEDS[speed()];
    if (!pace || !notes.some((n) => n.places.length)) return;
    this.moving = { note: notes[0], skip: false };
    this.decorate();
    try {
      for (const note of notes) {
        this.moving.note = note;
        shown(note);
        for (const [k, name] of note.places.entries()) {
          if (this.moving.skip) return;
          const place = this.element.querySelector(`[data-place="${CSS.escape(name)}"]`);
          if (!place) continue;
          const count = place.querySelector("text.count");
          if (note.sows && count) {
            const now = parseInt(count.textContent, 10) || 0;
            count.textContent = k === 0 ? "0" : String(now + 1);
          }
          place.classList.add("trail");
          await sleep((note.sows ? 140 : 260) * pace);
          place.classList.remove("trail");
        }
      }
    } finally {
      this.moving = null;
    }
  }

  skip() {
    if (this.moving) this.moving.skip = true;
  }
}

export function showTurn(status, view, board) {
  // The status line of a position no game stores (a lesson, the analysis board): the
  // move being shown, else how the game ended, else who acts, what is due and the
  // places chosen so far.
  status.className = "status";
  status.innerHTML = "";
  if (board.moving) {
    status.textContent = board.moving.note.text;
    return;
  }
  if (view.to_act === null) {
    status.classList.add("over");
    status.textContent = view.outcome ? view.outcome.sentence : "";
    return;
  }
  status.classList.add("turn");
  status.style.setProperty("--who", view.colours[view.to_act]);
  const due = document.createElement("span");
  due.className = "due";
  due.textContent = view.due;
  status.append(`${view.players[view.to_act]}:`, due);
  if (board.selected.length) status.append(` — ${board.selected.join(" → ")} …`);
}
