// The game page's form for a game against bots: show as many opponents as the seat
// count needs, and only the seats that exist. Without the script the server takes the
// first SEATS-1 opponents and checks the seat.
"use strict";

(function () {
  const seats = document.getElementById("start-seats");
  const seat = document.getElementById("start-seat");
  if (!seats || !seat) return;

  function update() {
    const count = Number(seats.value);
    for (const row of document.querySelectorAll("#start-form .opponent")) {
      const shown = Number(row.dataset.opponent) < count;
      row.hidden = !shown;
      row.querySelector("select").disabled = !shown;
    }
    for (const option of seat.options) option.hidden = option.disabled = Number(option.value) >= count;
    if (Number(seat.value) >= count) seat.value = "0";
  }

  seats.addEventListener("change", update);
  update();
})();
