// The form at the top of a view that opens one thing by id (a project, a run,
// a channel): submitting it moves the route to `#/<view>?<param>=<value>`.
import { hrefOf, navigate } from './router.js';
import { html } from './ui.js';

/** @param {{ view: string, param: string, value: string, placeholder: string, label: string }} props */
export function Picker({ view, param, value, placeholder, label }) {
  const open = (e) => {
    e.preventDefault();
    navigate(hrefOf(view, { [param]: new FormData(e.currentTarget).get(param) }));
  };
  return html`
    <form class="picker" onSubmit=${open}>
      <input name=${param} placeholder=${placeholder} value=${value} aria-label=${label} />
      <button type="submit">open</button>
    </form>
  `;
}

/**
 * A view about one id the person picks (`param` in the route): its section and
 * title, the picker, and `draw(id, params)` once an id is chosen.
 */
export function pickedView({ view, title, param, placeholder, label }, draw) {
  return function PickedView({ route }) {
    const value = route.params.get(param) ?? '';
    return html`
      <section id=${view} aria-labelledby=${`${view}-title`}>
        <h2 id=${`${view}-title`}>${title}</h2>
        <${Picker} view=${view} param=${param} value=${value} placeholder=${placeholder} label=${label} />
        ${value ? draw(value, route.params) : null}
      </section>
    `;
  };
}
