import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The architecture's rule "only src/store/ holds SQL" (docs/architecture.md): no string or
 * template literal outside src/store/ reads like an SQL statement. The TypeScript scanner finds
 * the literals, so comments and identifiers never count.
 */
const SRC = join(process.cwd(), 'src');
const SQL = /\b(SELECT\s+(\*|[a-z_(])|INSERT\s+INTO\s|UPDATE\s+[a-z_]+\s+SET\s|DELETE\s+FROM\s|WITH\s+[a-z_]+\s+AS\s*\(|pg_advisory)/i;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Every string and template literal of a file, with its line. */
export function literalsOf(text: string): Array<{ line: number; text: string }> {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const out: Array<{ line: number; text: string }> = [];
  const line = (pos: number) => text.slice(0, pos).split('\n').length;
  let templateDepth = 0;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    switch (kind) {
      case ts.SyntaxKind.StringLiteral:
      case ts.SyntaxKind.NoSubstitutionTemplateLiteral:
        out.push({ line: line(scanner.getTokenPos()), text: scanner.getTokenValue() });
        break;
      case ts.SyntaxKind.TemplateHead:
        templateDepth++;
        out.push({ line: line(scanner.getTokenPos()), text: scanner.getTokenValue() });
        break;
      case ts.SyntaxKind.CloseBraceToken:
        // Inside a template, a closing brace resumes the template's text.
        if (templateDepth > 0) {
          const next = scanner.reScanTemplateToken(false);
          out.push({ line: line(scanner.getTokenPos()), text: scanner.getTokenValue() });
          if (next === ts.SyntaxKind.TemplateTail) templateDepth--;
        }
        break;
      default:
        break;
    }
  }
  return out;
}

describe('only src/store/ holds SQL', () => {
  it('the scanner finds SQL in literals and not in comments (the check can fail)', () => {
    const found = literalsOf("// SELECT * FROM comments\nconst a = 'SELECT id FROM t';\nconst b = `x ${1} UPDATE jobs SET y = 1`;\n").filter((l) => SQL.test(l.text));
    expect(found.map((f) => f.line)).toEqual([2, 3]);
  });

  it('no module outside src/store/ has an SQL statement in a string or template literal', () => {
    const offenders = tsFiles(SRC)
      .filter((f) => !relative(SRC, f).startsWith('store/'))
      .flatMap((f) => literalsOf(readFileSync(f, 'utf8')).filter((l) => SQL.test(l.text)).map((l) => `${relative(process.cwd(), f)}:${l.line}`));
    expect(offenders).toEqual([]);
  });
});
