// Every lesson's widgets speak English and Polish: every text has both versions, with the same
// {placeholders}, so switching the page language never shows a half-translated widget. The
// widgets are found in lessons/*/widgets/, so a new lesson's are covered with no edit here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, existsSync } from "node:fs";
import { MESSAGES as rowSplitMessages } from "../../lessons/tp-mlp/widgets/row-split.js";
import { translator, formatNumberIn, inflect } from "../../web/src/widgets/i18n.js";
import { formatNumber, formatVector } from "../../web/src/widgets/matrix.js";
import { missedSum, missedSumHint, sumTerms, MISSED_SUM_MESSAGES } from "../../web/src/widgets/missed-sum.js";

const LESSONS = new URL("../../lessons/", import.meta.url);
const widgetModules = [];
for (const lesson of readdirSync(LESSONS)) {
  const dir = new URL(`${lesson}/widgets/`, LESSONS);
  if (!existsSync(dir)) continue;
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".js")).sort()) {
    widgetModules.push([`${lesson}/${file}`, await import(new URL(file, dir).href)]);
  }
}

test("the lessons' widgets are found", () => {
  assert.ok(widgetModules.some(([name]) => name === "tp-mlp/row-split.js"), widgetModules.map(([n]) => n).join(", "));
});

// A plural message ({one, few, many, other}) has the placeholders of all its forms.
const placeholders = (msg) => (typeof msg === "string" ? [...new Set([...msg.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort()
  : typeof msg === "object" ? [...new Set(Object.values(msg).flatMap(placeholders))].sort() : "fn");

for (const [name, { MESSAGES: messages }] of widgetModules) {
  test(`${name}: every English text has a Polish one with the same placeholders`, () => {
    assert.ok(messages?.en && messages?.pl, "a widget exports MESSAGES = {en: {...}, pl: {...}} for its text");
    assert.deepEqual(Object.keys(messages.pl).sort(), Object.keys(messages.en).sort());
    for (const key of Object.keys(messages.en)) {
      assert.deepEqual(placeholders(messages.pl[key]), placeholders(messages.en[key]), key);
      assert.equal(typeof messages.pl[key], typeof messages.en[key], key);
    }
  });
}

test("translator fills placeholders and runs message functions", () => {
  const t = translator({ en: { hi: "Hi {name}", n: ({ n }) => `${n} GPU${n === 1 ? "" : "s"}` }, pl: { hi: "Cześć {name}" } });
  assert.equal(t("pl", "hi", { name: "Ala" }), "Cześć Ala");
  assert.equal(t("pl", "n", { n: 2 }), "2 GPUs"); // falls back to English
  assert.throws(() => t("en", "missing"), /missing/);
});

test("the row-split prompt asks to change the last input coordinate, in both languages", () => {
  const t = translator(rowSplitMessages);
  assert.match(t("en", "prompt"), /Change the last input coordinate/);
  assert.match(t("pl", "prompt"), /Zmień ostatnią współrzędną wejścia/);
});

test("numbers and counts are written the language's way", () => {
  const t = translator({
    en: { sends: { one: "sends {count} number", other: "sends {count} numbers" }, size: "V = {V}" },
    pl: { sends: { one: "wysyła {count} liczbę", few: "wysyła {count} liczby", many: "wysyła {count} liczb" }, size: "V = {V}" },
  });
  assert.equal(t("pl", "sends", { count: 4 }), "wysyła 4 liczby");
  assert.equal(t("pl", "sends", { count: 5 }), "wysyła 5 liczb");
  assert.equal(t("pl", "sends", { count: 22 }), "wysyła 22 liczby");
  assert.equal(t("pl", "sends", { count: 1 }), "wysyła 1 liczbę");
  assert.equal(t("en", "sends", { count: 1 }), "sends 1 number");
  assert.equal(t("pl", "size", { V: 50257 }), "V = 50\u00a0257");
  assert.equal(t("en", "size", { V: 50257 }), "V = 50,257");
  assert.equal(formatNumberIn("pl", 1.65), "1,65");
  assert.equal(inflect("pl", 12, { one: "element", few: "elementy", many: "elementów" }), "elementów");
  assert.equal(formatNumber(1.68238, "pl"), "1,682");
  assert.equal(formatVector([1.68238, 2.79579], "()", "pl"), "(1,682; 2,796)");
  assert.equal(formatVector([4, 3], "[]", "pl"), "[4, 3]");
});

test("a result that is one GPU's share, or a wrong subset of the shares, is named", () => {
  const shares = [[0.841, 1.955], [0.841, 0.841], [1, 2]];
  const t = translator(MISSED_SUM_MESSAGES);
  assert.deepEqual(missedSum([0.841, 0.841], shares), { key: "missed-one", vars: { i: 1 } });
  assert.deepEqual(missedSum([1.841, 3.955], shares), { key: "missed-some", vars: { gpus: "0, 2" } });
  assert.equal(missedSum([2.682, 4.796], shares), null); // the right sum: nothing to name
  assert.equal(sumTerms("Y", 2), "Y_0 + Y_1");
  assert.equal(sumTerms("Y", 8), "Y_0 + Y_1 + … + Y_7");
  assert.equal(missedSumHint(t, "en", [0.841, 0.841], shares.slice(0, 2)),
    "Hint: your result is GPU 1's share alone, Y_1: the all-reduce that adds up every GPU's share, Y = Y_0 + Y_1, is missing.");
  assert.match(missedSumHint(t, "pl", [0.841, 0.841], shares.slice(0, 2), { total: "dX" }), /^Podpowiedź: twój wynik to sam udział GPU 1, dX_1/);
});
