// An example submitted bot in JavaScript (Node.js), speaking the arena's bot protocol
// (docs/protocol.md) directly: one JSON object per line on stdin and stdout.
//
// Register it:  arena bots add example-js -g koenigsgarten --cmd "node $PWD/bots/examples/js_bot.js"
//
// Königsgarten: win at once if it can, never hand the opponent an immediate win,
// else take the cell with the most open patterns. Kardinal & König: keep taking
// cards of the country it holds most of, then end the turn.
"use strict";

const readline = require("readline");

const PROTOCOL = 1;
const SIZE = 4;
const CELLS = [];
for (let rank = 1; rank <= SIZE; rank++) for (const file of "abcd") CELLS.push(file + rank);

const PATTERNS = [];
for (let i = 0; i < SIZE; i++) {
  PATTERNS.push([0, 1, 2, 3].map((c) => i * SIZE + c)); // rows
  PATTERNS.push([0, 1, 2, 3].map((r) => r * SIZE + i)); // columns
}
PATTERNS.push([0, 5, 10, 15], [3, 6, 9, 12]);
for (let r = 0; r < SIZE - 1; r++) {
  for (let c = 0; c < SIZE - 1; c++) {
    const corner = r * SIZE + c;
    PATTERNS.push([corner, corner + 1, corner + SIZE, corner + SIZE + 1]);
  }
}

function wins(owned, cell) {
  return PATTERNS.some((p) => p.includes(cell) && p.every((x) => x === cell || owned.has(x)));
}

function gardenMove(observation, legal) {
  const me = observation.seat;
  const cellOf = new Map();
  observation.garden.forEach((card, cell) => card !== null && cellOf.set(card, cell));
  const mine = new Set(observation.markers[me].map((name) => CELLS.indexOf(name)));
  const theirs = new Set(observation.markers[1 - me].map((name) => CELLS.indexOf(name)));
  const score = (card) => {
    const cell = cellOf.get(card);
    if (wins(mine, cell)) return 1000;
    const replies = [...cellOf.keys()].filter(
      (other) => other !== card && (other[0] === card[0] || other[1] === card[1]),
    );
    if (replies.length === 0 && cellOf.size > 1) return 1000;
    if (replies.some((reply) => wins(theirs, cellOf.get(reply)))) return -1;
    return PATTERNS.filter((p) => p.includes(cell) && !p.some((x) => theirs.has(x))).length;
  };
  let best = legal[0];
  for (const card of legal) if (score(card) > score(best)) best = card;
  return best;
}

function kardinalMove(observation, legal) {
  const counts = {};
  for (const card of observation.holdings[observation.seat]) {
    counts[card.slice(0, 2)] = (counts[card.slice(0, 2)] || 0) + 1;
  }
  const takes = legal.filter((action) => action.startsWith("take "));
  if (takes.length > 0) {
    const held = (action) => counts[action.slice(5, 7)] || 0;
    return takes.reduce((best, action) => (held(action) > held(best) ? action : best));
  }
  for (const finish of ["end", "skip"]) if (legal.includes(finish)) return finish;
  return legal[0];
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      send({ type: "hello", protocol: PROTOCOL, name: "example-js", games: ["koenigsgarten", "kardinal"] });
      break;
    case "new_game":
      console.error(`new game: ${message.game}, seat ${message.seat} of ${message.seats}`);
      send({ type: "ready" });
      break;
    case "act": {
      const { observation, legal_actions: legal } = message;
      const move =
        observation.game === "koenigsgarten"
          ? gardenMove(observation, legal)
          : kardinalMove(observation, legal);
      send({ type: "action", action: move });
      break;
    }
    case "game_over":
      break;
    case "quit":
      process.exit(0);
      break;
    default:
      send({ type: "error", message: `unknown message type ${message.type}` });
      process.exit(2);
  }
});
