import { isBuiltin } from 'node:module';
import { parseAst } from 'vite';

/** What a bundle asks the module loader for, read from its syntax tree (not from text patterns). */
export interface ModuleSpecifiers {
  /** Literal specifiers of static imports, re-exports, `import()` and `require()`-like calls. */
  readonly literal: ReadonlySet<string>;
  /** Electron names the bundle imports statically (`import { app } from "electron"`). */
  readonly electronNames: ReadonlySet<string>;
  /** `import(x)` / `require(x)` whose argument is not a string literal: nothing can check those. */
  readonly computed: number;
}

type Node = { type?: unknown; [key: string]: unknown };

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null;
const literalString = (node: unknown): string | undefined => (isNode(node) && node.type === 'Literal' && typeof node.value === 'string' ? node.value : undefined);
// Bundlers rename require (`__require`, `require$1`); any callee named like it loads a module.
const isRequireCallee = (callee: unknown): boolean => isNode(callee) && callee.type === 'Identifier' && typeof callee.name === 'string' && /^_*require(\$\d+)?$/.test(callee.name);

export function moduleSpecifiers(code: string): ModuleSpecifiers {
  const literal = new Set<string>();
  const electronNames = new Set<string>();
  let computed = 0;
  const loaded = (argument: unknown) => {
    const value = literalString(argument);
    if (value === undefined) computed += 1;
    else literal.add(value);
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isNode(node)) return;
    switch (node.type) {
      case 'ImportDeclaration': {
        const source = literalString(node.source) ?? '';
        literal.add(source);
        if (source === 'electron' && Array.isArray(node.specifiers)) {
          for (const specifier of node.specifiers as Node[]) if (specifier.type === 'ImportSpecifier' && isNode(specifier.imported)) electronNames.add(String(specifier.imported.name));
        }
        break;
      }
      case 'ExportAllDeclaration':
      case 'ExportNamedDeclaration':
        if (node.source !== null && node.source !== undefined) loaded(node.source);
        break;
      case 'ImportExpression':
        loaded(node.source);
        break;
      case 'CallExpression':
        if (isRequireCallee(node.callee)) loaded((node.arguments as unknown[])[0]);
        break;
    }
    for (const [key, child] of Object.entries(node)) if (key !== 'type' && isNode(child)) visit(child);
  };
  visit(parseAst(code));
  return { literal, electronNames, computed };
}

/** The package a bare specifier names (`@scope/pkg/sub` → `@scope/pkg`), or undefined for a built-in or a relative path. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || isBuiltin(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}
