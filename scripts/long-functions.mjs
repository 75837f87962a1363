#!/usr/bin/env node
/**
 * The functions of src/ (tests excluded) longer than a number of lines, longest first, so that the
 * count can be watched: `node scripts/long-functions.mjs [--over 60]`. A function is any function
 * declaration, method, accessor, constructor, function expression or arrow function; its lines run
 * from its first token to its last (the doc comment above it is not counted), and a function
 * inside another is counted on its own as well. Prints one line per function — lines, name,
 * file:line — then the count.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const overAt = args.indexOf('--over');
const over = overAt === -1 ? 60 : Number(args[overAt + 1]);
if (!Number.isInteger(over) || over < 0) {
  process.stderr.write('usage: node scripts/long-functions.mjs [--over <lines>]\n');
  process.exit(2);
}

/** The .ts files under `dir`, tests and declaration files excluded. */
function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    const wanted = entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.test.ts');
    return wanted ? [path] : [];
  });
}

/** The text of a name node (an identifier, a string or a computed key). */
function nameText(name, file) {
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return name.getText(file);
}

/** What a reader calls the function: its own name, else the name it is bound to, else where it is passed. */
function nameOf(node, file) {
  const className = (member) => {
    const owner = member.parent;
    return owner !== undefined && (ts.isClassLike(owner)) && owner.name !== undefined ? `${owner.name.text}.` : '';
  };
  if (ts.isConstructorDeclaration(node)) return `${className(node)}constructor`;
  if ((ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) && node.name !== undefined) {
    const kind = ts.isGetAccessor(node) ? 'get ' : ts.isSetAccessor(node) ? 'set ' : '';
    return `${kind}${className(node)}${nameText(node.name, file)}`;
  }
  if ((ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node)) && node.name !== undefined) return node.name.text;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if ((ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name !== undefined) return nameText(parent.name, file);
  if (ts.isBinaryExpression(parent)) return parent.left.getText(file);
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) {
    const callee = parent.expression.getText(file);
    return `<${callee.length > 40 ? `${callee.slice(0, 40)}…` : callee} callback>`;
  }
  return '<anonymous>';
}

const found = [];
for (const path of sourceFiles(join(root, 'src'))) {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      const lines = last - first + 1;
      if (lines > over) found.push({ name: nameOf(node, file), where: `${relative(root, path)}:${first}`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}

found.sort((a, b) => b.lines - a.lines || a.where.localeCompare(b.where, 'en'));
const width = Math.max(0, ...found.map((one) => one.name.length));
for (const one of found) process.stdout.write(`${String(one.lines).padStart(5)}  ${one.name.padEnd(width)}  ${one.where}\n`);
process.stdout.write(`${found.length} functions over ${over} lines in src/ (tests excluded)\n`);
