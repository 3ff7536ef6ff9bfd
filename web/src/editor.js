// The solution.py editor: CodeMirror 6 with Python highlighting; Ctrl/Cmd+Enter runs; the
// learner's failing line is marked (lint diagnostics); colours follow the page's theme.

import { basicSetup } from "codemirror";
import { EditorView, keymap } from "@codemirror/view";
import { Compartment, EditorState, Prec } from "@codemirror/state";
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { tags } from "@lezer/highlight";
import { setDiagnostics } from "@codemirror/lint";

// The page's colour variables (page.css), so the editor turns dark with the page.
const pageTheme = EditorView.theme({
  "&": { backgroundColor: "var(--paper)", color: "var(--ink)" },
  ".cm-content": { caretColor: "var(--ink)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--ink)" },
  ".cm-gutters": { backgroundColor: "var(--wash)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLine": { backgroundColor: "var(--active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--active-line)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: "var(--selection)" },
});

// Python's colours as page variables (page.css: CodeMirror's defaults, a little darker where
// those fall under 4.5:1, and light ones for the dark theme). Replaces basicSetup's fallback.
const pageHighlight = HighlightStyle.define([
  { tag: tags.keyword, color: "var(--code-keyword)" },
  { tag: [tags.atom, tags.bool, tags.url, tags.contentSeparator, tags.labelName], color: "var(--code-atom)" },
  { tag: [tags.literal, tags.inserted], color: "var(--code-number)" },
  { tag: [tags.string, tags.deleted], color: "var(--code-string)" },
  { tag: [tags.regexp, tags.escape, tags.special(tags.string)], color: "var(--code-escape)" },
  { tag: tags.definition(tags.variableName), color: "var(--code-definition)" },
  { tag: tags.local(tags.variableName), color: "var(--code-local)" },
  { tag: [tags.typeName, tags.namespace], color: "var(--code-type)" },
  { tag: tags.className, color: "var(--code-class)" },
  { tag: [tags.special(tags.variableName), tags.macroName], color: "var(--code-special)" },
  { tag: tags.definition(tags.propertyName), color: "var(--code-property)" },
  { tag: tags.comment, color: "var(--code-comment)" },
  { tag: tags.meta, color: "var(--code-meta)" },
  { tag: tags.invalid, color: "var(--code-invalid)" },
  { tag: tags.emphasis, fontStyle: "italic" },
  { tag: tags.strong, fontWeight: "bold" },
  { tag: tags.link, textDecoration: "underline" },
]);

// CodeMirror's own words (its fold gutter, search panel, lint panel), per page language;
// English is CodeMirror's default.
const PHRASES = {
  pl: {
    "Fold line": "Zwiń wiersz",
    "Unfold line": "Rozwiń wiersz",
    "Folded lines": "Zwinięte wiersze",
    unfold: "rozwiń",
    "folded code": "zwinięty kod",
    Find: "Znajdź",
    Replace: "Zamień",
    next: "następne",
    previous: "poprzednie",
    all: "wszystkie",
    "match case": "wielkość liter",
    regexp: "wyrażenie regularne",
    "by word": "całe słowa",
    replace: "zamień",
    "replace all": "zamień wszystkie",
    close: "zamknij",
    "current match": "bieżące dopasowanie",
    "on line": "w wierszu",
    "replaced match on line $": "zamieniono dopasowanie w wierszu $",
    "replaced $ matches": "zamieniono dopasowania: $",
    "Go to line": "Przejdź do wiersza",
    go: "przejdź",
    "Selection deleted": "Usunięto zaznaczenie",
    Diagnostics: "Diagnostyka",
    "No diagnostics": "Brak diagnostyki",
    "Control character": "Znak sterujący",
    Completions: "Podpowiedzi",
  },
};

/**
 * @param {HTMLElement} parent
 * @param {{doc: string, lang: string, onChange(text: string): void, onRun(): void}} options
 */
export function createEditor(parent, { doc, lang = "en", onChange, onRun }) {
  const phrases = new Compartment();
  const phrasesFor = (l) => EditorState.phrases.of(PHRASES[l] ?? {});
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        basicSetup,
        phrases.of(phrasesFor(lang)),
        python(),
        pageTheme,
        syntaxHighlighting(pageHighlight),
        // The editor shares the screen with the prose: long lines wrap instead of hiding.
        EditorView.lineWrapping,
        // Tab indents, as Python needs; Escape then Tab still leaves the editor (CodeMirror's
        // rule, stated next to the editor).
        keymap.of([indentWithTab]),
        // Above the default keymap, where Mod-Enter would insert a blank line.
        Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => (onRun(), true) }])),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange(update.state.doc.toString());
        }),
        // An explicit tab stop: the scroller around it then counts as keyboard-reachable (axe).
        EditorView.contentAttributes.of({ "aria-label": "solution.py", tabindex: "0" }),
      ],
    }),
  });

  return {
    view,
    getText: () => view.state.doc.toString(),
    /** Replaces the whole text as one undoable change. */
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    focus: () => view.focus(),
    /** CodeMirror's own words (fold gutter, search) in the page's language. */
    setLanguage(l) {
      view.dispatch({ effects: phrases.reconfigure(phrasesFor(l)) });
    },
    /** Marks lines of the learner's file: [{line, message}] (1-based lines); [] clears. */
    markLines(marks) {
      const doc = view.state.doc;
      const diagnostics = marks
        .filter((m) => m.line >= 1 && m.line <= doc.lines)
        .map((m) => {
          const line = doc.line(m.line);
          return { from: line.from, to: line.to, severity: "error", message: m.message };
        });
      view.dispatch(setDiagnostics(view.state, diagnostics));
    },
  };
}
