// Command-line options of the bench scripts: `--name value` pairs.

/** The text after `name` in `args`, or `fallback` when `name` is absent. */
export function option(args, name, fallback) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
}

/** `option` as a number. */
export function numberOption(args, name, fallback) {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
}
