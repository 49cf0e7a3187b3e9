// Cards in engine text ("10♥", "Q♠") become chips: red hearts and diamonds, black
// spades and clubs. The text is escaped first; nothing in it is ever run as markup.
"use strict";

const CARD = /(10|[2-9AJQK])([♠♥♦♣])/g;

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function cardsToHtml(text) {
  return escapeHtml(text).replace(CARD, (_, rank, suit) => {
    const colour = suit === "♥" || suit === "♦" ? "red" : "black";
    return `<span class="card ${colour}">${rank}${suit}</span>`;
  });
}

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

// A card code of the records ("TD", "QH") in the pretty form ("10♦", "Q♥").
function prettyCode(text) {
  return text.replace(/\b([2-9TJQKA])([SHDC])\b/g, (_, rank, suit) => (rank === "T" ? "10" : rank) + SUITS[suit]);
}
