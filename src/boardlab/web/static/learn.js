// The learn page: each game's lessons, those done in this browser ticked, and the
// start button leading to the first not done yet.

import { _ } from "./i18n.js";
import { done } from "./progress.js";

for (const card of document.querySelectorAll("[data-game]")) {
  const finished = done(card.dataset.game);
  const items = [...card.querySelectorAll("[data-lesson]")];
  let next = null;
  for (const item of items) {
    const isDone = finished.has(item.dataset.lesson);
    item.classList.toggle("done", isDone);
    item.querySelector(".done-mark").hidden = !isDone;
    if (!isDone && !next) next = item.querySelector("a");
  }
  const count = items.filter((item) => finished.has(item.dataset.lesson)).length;
  const progress = card.querySelector(".progress");
  const start = card.querySelector("[data-start]");
  if (count && items.length) {
    progress.hidden = false;
    progress.textContent = _("{done} of {count} lessons done", { done: count, count: items.length });
    if (start && next) {
      start.href = next.getAttribute("href");
      start.textContent = _("Continue the lessons");
    } else if (start) {
      start.textContent = _("Play the lessons again");
    }
  }
}
