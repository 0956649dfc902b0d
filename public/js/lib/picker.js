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
