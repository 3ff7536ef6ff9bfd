// Every lesson's widgets speak English and Polish: every text has both versions, with the same
// {placeholders}, so switching the page language never shows a half-translated widget. The
// widgets are found in lessons/*/widgets/, so a new lesson's are covered with no edit here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, existsSync } from "node:fs";
import { MESSAGES as rowSplitMessages } from "../../lessons/tp-mlp/widgets/row-split.js";
import { translator } from "../../web/src/widgets/i18n.js";

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

const placeholders = (msg) => (typeof msg === "string" ? [...msg.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort() : "fn");

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
