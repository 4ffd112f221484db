/**
 * Shell completion scripts for `tscodex completion`: the words a shell offers after each
 * command path (its subcommands and flags), from the command tree. Flags always include
 * `--help`; the top level also `--version`.
 */

/** A command: its name, its flags (`-m`, `--model`…), and its subcommands. */
export interface CompletionNode {
  name: string;
  flags: string[];
  subcommands: CompletionNode[];
  /** Words its argument takes (e.g. the shells of `completion`). */
  values?: string[];
}

interface Path {
  /** The subcommand words after the program name ("" at the top). */
  words: string[];
  node: CompletionNode;
}

function paths(root: CompletionNode): Path[] {
  const out: Path[] = [];
  const walk = (node: CompletionNode, words: string[]) => {
    out.push({ words, node });
    for (const sub of node.subcommands) walk(sub, [...words, sub.name]);
  };
  walk(root, []);
  return out;
}

function offered(node: CompletionNode, top: boolean): string[] {
  const flags = new Set([...node.flags, "--help", ...(top ? ["--version"] : [])]);
  return [...(node.values ?? []), ...node.subcommands.map((sub) => sub.name), ...flags];
}

/** The completion script for `shell`. */
export function completionScript(shell: "bash" | "zsh" | "fish", root: CompletionNode): string {
  if (shell === "fish") return fishScript(root);
  const bash = bashScript(root);
  // zsh runs the bash function through bashcompinit.
  return shell === "zsh" ? `#compdef tscodex\nautoload -U +X bashcompinit && bashcompinit\n${bash}` : bash;
}

function bashScript(root: CompletionNode): string {
  const cases = paths(root)
    .map(
      ({ words, node }) =>
        `    "${words.join(" ")}") words="${offered(node, words.length === 0).join(" ")}" ;;`,
    )
    .join("\n");
  const commandNames = paths(root)
    .filter(({ words }) => words.length > 0)
    .map(({ words }) => words.join(" "));
  return `# tscodex completion (bash)
_tscodex() {
  local cur path="" word candidate words i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  # The command path: the words before the cursor that extend a known command.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    candidate="\${path:+$path }$word"
    case " $_tscodex_commands " in
      *"|$candidate|"*) path="$candidate" ;;
    esac
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
_tscodex_commands="${commandNames.map((name) => `|${name}|`).join(" ")}"
complete -o default -F _tscodex tscodex
`;
}

function fishScript(root: CompletionNode): string {
  const lines = ["# tscodex completion (fish)", "complete -c tscodex -f"];
  for (const { words, node } of paths(root)) {
    // Offered when the command line so far is exactly this path (fish's own helper checks it).
    const condition =
      words.length === 0
        ? "__fish_use_subcommand"
        : `__fish_seen_subcommand_from ${words.at(-1)}${words.length > 1 ? ` && __fish_seen_subcommand_from ${words[0]}` : ""}`;
    for (const word of [...(node.values ?? []), ...node.subcommands.map((sub) => sub.name)])
      lines.push(`complete -c tscodex -n '${condition}' -a ${word}`);
    for (const flag of offered(node, words.length === 0).filter((word) => word.startsWith("-"))) {
      const spec = flag.startsWith("--") ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`;
      lines.push(`complete -c tscodex -n '${condition}' ${spec}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
