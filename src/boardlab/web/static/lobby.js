// The lobby keeps its list current: while the page is in sight it asks the server for
// the lobby every few seconds (one request at a time, less often after a failure) and
// puts the new list in place of the old when it changed. The name typed meanwhile and
// the rest of the page stay as they are. Out of sight it asks nothing. The challenges'
// pages keep theirs the same way; a challenge accepted answers with its game, where
// the page goes.

import { localTimes } from "./times.js";

// ms between two looks while all is well (a challenger waiting for the answer: less)
const EVERY = Number(document.getElementById("waiting").dataset.every) || 5000;
const LONGEST = 60000; // ms between two looks at most, after failures

const list = document.getElementById("waiting");
const name = document.querySelector("#lobby .your-name");
const address = location.pathname + location.search;
let wait = EVERY;
let timer = null;
let asking = false;

function visible() {
  return document.visibilityState === "visible";
}

function later(ms) {
  clearTimeout(timer);
  timer = visible() ? setTimeout(look, ms) : null;
}

async function look() {
  if (asking || !visible()) return;
  asking = true;
  try {
    const answer = await fetch(address, { headers: { accept: "text/html" }, cache: "no-store" });
    if (!answer.ok) throw new Error(String(answer.status));
    if (answer.redirected) {
      location.assign(answer.url); // the challenge was accepted: its game
      return;
    }
    const page = new DOMParser().parseFromString(await answer.text(), "text/html");
    const fresh = page.getElementById("waiting");
    if (fresh) localTimes(fresh); // as the list on the page shows them
    if (fresh && fresh.innerHTML !== list.innerHTML) {
      const focused = document.activeElement?.getAttribute("formaction");
      list.replaceChildren(...fresh.childNodes);
      if (name) name.hidden = !list.querySelector("table");
      if (focused) list.querySelector(`[formaction="${CSS.escape(focused)}"]`)?.focus();
    }
    wait = EVERY;
  } catch {
    wait = Math.min(wait * 2, LONGEST); // the server is away: ask less often
  } finally {
    asking = false;
    later(wait);
  }
}

document.addEventListener("visibilitychange", () => {
  if (visible()) look(); // back in sight: at once, then every few seconds
  else later(0);
});
later(wait);
