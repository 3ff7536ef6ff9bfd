// The solution.py editor: CodeMirror 6 with Python highlighting; Ctrl/Cmd+Enter runs; the
// learner's failing line is marked (lint diagnostics); colours follow the page's theme.

import { basicSetup } from "codemirror";
import { EditorView, keymap } from "@codemirror/view";
import { EditorState, Prec } from "@codemirror/state";
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
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

/**
 * @param {HTMLElement} parent
 * @param {{doc: string, onChange(text: string): void, onRun(): void}} options
 */
export function createEditor(parent, { doc, onChange, onRun }) {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        basicSetup,
        python(),
        pageTheme,
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
