"""StepKeys: the ←/→ keys step a view's slider wherever the view has focus, in every front end.

JupyterLab and Notebook 7 bind keys through lumino's command registry. Notebook 7 handles keydown
in the capture phase, before the focused slider sees it, and binds ← in command mode to
"collapse the heading / go to the cell above": pressing ← on the step slider moved focus to
another cell. Lumino skips a binding when its walk from the event's target up to the element that
matches the binding's selector meets the ``data-lm-suppress-shortcuts`` attribute; the command
mode selector ends in ``:focus``, so it matches the focused element itself and the attribute must
be on that element. This small anywidget puts the attribute on its enclosing live view
(:data:`jdsl_nb.widgets._static.LIVE_CLASS`) once it is in the page and on every element of the
view that takes focus. Keys pressed inside the view then reach the view: the slider's own handle moves by one step, and ←/→
on any other part of the view (a step button, the tree) send a one-step move to the kernel.
"""

from __future__ import annotations

from typing import Any

import anywidget
import ipywidgets as w

from jdsl_nb.widgets._static import LIVE_CLASS

__all__ = ["SUPPRESS_ATTRIBUTE", "StepKeys"]

SUPPRESS_ATTRIBUTE = "data-lm-suppress-shortcuts"

_ESM = """
function attach(el, model, tries) {
  const view = el.closest('.__LIVE__');
  if (!view) {
    if (tries < 400) setTimeout(() => attach(el, model, tries + 1), 50);
    return;
  }
  view.setAttribute('__ATTR__', 'true');
  if (view.dataset.jdslStepKeys) return;
  view.dataset.jdslStepKeys = 'true';
  // lumino tests a binding's selector on the focused element before it looks for the
  // attribute on its ancestors: the element that takes focus must carry it itself
  const mark = (node) => node.setAttribute && node.setAttribute('__ATTR__', 'true');
  view.querySelectorAll('[tabindex], button, .noUi-handle').forEach(mark);
  view.addEventListener('focusin', (event) => mark(event.target));
  view.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const target = event.target;
    // a slider handle, a text box or a list moves its own caret or value
    if (target.closest && target.closest('input, textarea, select, .noUi-target')) return;
    event.preventDefault();
    model.send({step: event.key === 'ArrowRight' ? 1 : -1});
  });
}
export default {
  render({model, el}) {
    el.classList.add('jdsl-step-keys');
    attach(el, model, 0);
  }
};
""".replace("__LIVE__", LIVE_CLASS).replace("__ATTR__", SUPPRESS_ATTRIBUTE)


class StepKeys(anywidget.AnyWidget):
    """An invisible widget that gives ←/→ to the view it sits in and steps ``slider`` by one.

    Example:
        >>> import ipywidgets as w
        >>> slider = w.IntSlider(value=3, max=9)
        >>> keys = StepKeys(slider)
        >>> keys.press(1)
        >>> slider.value
        4
    """

    _esm = _ESM

    def __init__(self, slider: w.IntSlider, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.slider = slider
        self.on_msg(self._on_message)

    def press(self, delta: int) -> None:
        """Move the slider by ``delta`` steps, kept within its range."""
        slider = self.slider
        slider.value = min(max(int(slider.value) + int(delta), slider.min), slider.max)

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("step") in (-1, 1):
            self.press(int(content["step"]))
