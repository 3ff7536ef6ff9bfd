// The widgets' text: translator() reads a widget's text file (widgets/<name>.text.json) with the
// kit's shared texts (web/src/widgets/text.json). That every text file is complete in both
// languages is the build's check, located at file and line (tests/site/test_widget_text.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import rowSplitText from "../../lessons/tp-mlp/widgets/row-split.text.json" with { type: "json" };
import { translator, formatNumberIn, inflect } from "../../web/src/widgets/i18n.js";
import { formatNumber, formatVector } from "../../web/src/widgets/matrix.js";
import { missedSum, missedSumHint, sumTerms } from "../../web/src/widgets/missed-sum.js";
import { readdirSync, existsSync } from "node:fs";

test("every lesson's widget loads with its text file", async () => {
  const lessons = new URL("../../lessons/", import.meta.url);
  const loaded = [];
  for (const lesson of readdirSync(lessons)) {
    const dir = new URL(`${lesson}/widgets/`, lessons);
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".js"))) {
      assert.equal(typeof (await import(new URL(file, dir).href)).mount, "function", file);
      loaded.push(file);
    }
  }
  assert.ok(loaded.includes("row-split.js"), loaded.join(", "));
});

test("translator fills placeholders, joins lists the language's way and adds the kit's texts", () => {
  const t = translator({ en: { hi: "Hi {name}", n: "{n} GPUs", in: "in coordinates {coords}", stale: "Mine" }, pl: { hi: "Cześć {name}", in: "we współrzędnych {coords}" } });
  assert.equal(t("pl", "hi", { name: "Ala" }), "Cześć Ala");
  assert.equal(t("pl", "n", { n: 2 }), "2 GPUs"); // falls back to English
  assert.equal(t("en", "in", { coords: [0, 1] }), "in coordinates 0 and 1");
  assert.equal(t("pl", "in", { coords: [0, 1] }), "we współrzędnych 0 i 1");
  assert.equal(t("pl", "try-button"), "Sprawdź mój kod"); // the kit's
  assert.equal(t("en", "stale"), "Mine"); // the widget's own text overrides the kit's
  assert.throws(() => t("en", "missing"), /missing/);
});

test("the row-split prompt asks to change the last input coordinate, in both languages", () => {
  const t = translator(rowSplitText);
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
  const t = translator({ en: {}, pl: {} }); // the kit's texts
  assert.deepEqual(missedSum([0.841, 0.841], shares), { key: "missed-one", vars: { i: 1 } });
  assert.deepEqual(missedSum([1.841, 3.955], shares), { key: "missed-some", vars: { gpus: "0, 2" } });
  assert.equal(missedSum([2.682, 4.796], shares), null); // the right sum: nothing to name
  assert.equal(sumTerms("Y", 2), "Y_0 + Y_1");
  assert.equal(sumTerms("Y", 8), "Y_0 + Y_1 + … + Y_7");
  assert.equal(missedSumHint(t, "en", [0.841, 0.841], shares.slice(0, 2)),
    "Hint: your result is GPU 1's share alone, Y_1: the all-reduce that adds up every GPU's share, Y = Y_0 + Y_1, is missing.");
  assert.match(missedSumHint(t, "pl", [0.841, 0.841], shares.slice(0, 2), { total: "dX" }), /^Podpowiedź: twój wynik to sam udział GPU 1, dX_1/);
});
