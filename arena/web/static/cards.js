// Cards in engine text become chips: French cards ("10♥", "Q♠") red or black, and
// Kardinal's country cards ("FR3○○⚓▣●2": country, number, circles, symbol, tablet,
// stone) in their country's colour. The text is escaped first; nothing in it is ever
// run as markup.
"use strict";

const CARD = /(10|[2-9AJQK])([♠♥♦♣])|\b(DK|EN|IT|BY|HU|KA|FK|SN|FR)([1-8])(○*)([⚓♞]?)(▣?)((?:●\d)?)|●(\d)/g;

// A seat's marker on a board (Königsgarten's "●1"): a shape of its own per seat as well
// as a colour, so the seats differ without colour vision.
const MARKER_SHAPES = ["●", "■", "▲", "◆"];

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function cardsToHtml(text) {
  return escapeHtml(text).replace(CARD, (whole, rank, suit, country, number, circles, symbol, tablet, stone, marker) => {
    if (marker !== undefined) {
      const shape = MARKER_SHAPES[Number(marker) % MARKER_SHAPES.length];
      return `<span class="marker m${marker}" title="seat ${marker}'s marker">${shape}${marker}</span>`;
    }
    if (rank) {
      const colour = suit === "♥" || suit === "♦" ? "red" : "black";
      return `<span class="card ${colour}">${rank}${suit}</span>`;
    }
    const marks = `${circles}${symbol}${tablet}` + (stone ? `<span class="stone s${stone.slice(1)}">${stone}</span>` : "");
    return `<span class="card country ${country}">${country}${number}${marks}</span>`;
  });
}

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

// A card code of the records ("TD", "QH") in the pretty form ("10♦", "Q♥").
function prettyCode(text) {
  return text.replace(/\b([2-9TJQKA])([SHDC])\b/g, (_, rank, suit) => (rank === "T" ? "10" : rank) + SUITS[suit]);
}
