// The replay viewer: fetches one seat's view of every step (or the spectator's) and
// steps through it. A seat's view comes from the server with nothing that seat could
// not see; changing the seat fetches that seat's view anew.
"use strict";

(function () {
  const root = document.getElementById("replay");
  const gameId = root.dataset.gameId;
  const seatSelect = document.getElementById("seat");
  const board = document.getElementById("board");
  const slider = document.getElementById("slider");
  const position = document.getElementById("position");
  const stepAction = document.getElementById("step-action");
  const legal = document.getElementById("legal");
  const observation = document.getElementById("observation");
  const observationBox = document.getElementById("observation-box");
  const moves = document.getElementById("moves");
  const errorBox = document.getElementById("replay-error");
  let replay = null;
  let current = 0;

  function describe(step) {
    if (step.index < 0) return "the deal";
    const who = replay.players[step.seat] || `seat ${step.seat}`;
    return `move ${step.index + 1}: seat ${step.seat} (${who}) played ${prettyCode(step.action)}`;
  }

  function show(index) {
    if (!replay) return;
    current = Math.max(0, Math.min(index, replay.steps.length - 1));
    const step = replay.steps[current];
    board.innerHTML = cardsToHtml(step.text);
    slider.value = String(current);
    position.textContent = `step ${current} / ${replay.steps.length - 1}`;
    stepAction.innerHTML = cardsToHtml(describe(step));
    if (step.to_move === null) {
      const outcome = replay.outcome;
      legal.textContent = `game over: ${outcome.termination}, places ${outcome.ranking.join("-")}`;
    } else if (step.legal) {
      legal.innerHTML = cardsToHtml(`seat ${step.to_move} to move; legal: ${step.legal.map(prettyCode).join("  ")}`);
    } else {
      legal.textContent = `seat ${step.to_move} to move`;
    }
    observationBox.hidden = step.observation === null;
    observation.textContent = step.observation === null ? "" : JSON.stringify(step.observation, null, 1);
    for (const item of moves.children) {
      item.classList.toggle("current", Number(item.dataset.step) === current);
    }
  }

  function listMoves() {
    moves.replaceChildren();
    replay.steps.forEach((step, index) => {
      if (step.index < 0) return;
      const item = document.createElement("li");
      item.dataset.step = String(index);
      item.innerHTML = cardsToHtml(`${step.seat}: ${prettyCode(step.action)}`);
      item.addEventListener("click", () => show(index));
      moves.appendChild(item);
    });
  }

  async function load() {
    const seat = seatSelect.value;
    const url = `/api/records/${gameId}/replay` + (seat === "" ? "" : `?seat=${encodeURIComponent(seat)}`);
    const response = await fetch(url);
    const data = await response.json();
    if (!response.ok) {
      errorBox.hidden = false;
      errorBox.textContent = data.detail || `error ${response.status}`;
      board.textContent = "";
      return;
    }
    errorBox.hidden = true;
    replay = data;
    slider.max = String(replay.steps.length - 1);
    listMoves();
    show(current);
    root.dataset.loadedSeat = seat;
  }

  document.getElementById("first").addEventListener("click", () => show(0));
  document.getElementById("prev").addEventListener("click", () => show(current - 1));
  document.getElementById("next").addEventListener("click", () => show(current + 1));
  document.getElementById("last").addEventListener("click", () => show(replay ? replay.steps.length - 1 : 0));
  slider.addEventListener("input", () => show(Number(slider.value)));
  seatSelect.addEventListener("change", load);
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    const moves = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: Infinity };
    if (event.key in moves) {
      event.preventDefault();
      show(moves[event.key] === Infinity ? replay.steps.length - 1 : moves[event.key]);
    }
  });
  load();
})();
