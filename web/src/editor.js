// The solution.py editor: CodeMirror 6 with Python highlighting; Ctrl/Cmd+Enter runs.

import { basicSetup } from "codemirror";
import { EditorView, keymap } from "@codemirror/view";
import { EditorState, Prec } from "@codemirror/state";
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";

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
        // The editor shares the screen with the prose: long lines wrap instead of hiding.
        EditorView.lineWrapping,
        // Tab indents, as Python needs; Escape then Tab still leaves the editor (CodeMirror's rule).
        keymap.of([indentWithTab]),
        // Above the default keymap, where Mod-Enter would insert a blank line.
        Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => (onRun(), true) }])),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange(update.state.doc.toString());
        }),
        EditorView.contentAttributes.of({ "aria-label": "solution.py" }),
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
  };
}
