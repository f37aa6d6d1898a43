/**
 * A small XML 1.0 well-formedness checker for the JUnit tests (the project has no XML
 * parser dependency): one root, balanced and properly nested tags, quoted attributes with no
 * raw "<", only the predefined or numeric entity references, no characters XML forbids.
 * Returns the list of problems (empty when well-formed) and the elements seen.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  text: string;
}

const NAME = /^[A-Za-z_:][A-Za-z0-9_:.-]*/;
const INVALID_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

function decode(text: string, problems: string[]): string {
  return text.replace(/&([^;]*);?/g, (m, ent: string) => {
    if (!m.endsWith(';')) problems.push(`bare "&" in ${JSON.stringify(text.slice(0, 40))}`);
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (ent in named) return named[ent]!;
    if (/^#\d+$/.test(ent)) return String.fromCodePoint(Number(ent.slice(1)));
    if (/^#x[0-9a-fA-F]+$/.test(ent)) return String.fromCodePoint(parseInt(ent.slice(2), 16));
    problems.push(`unknown entity &${ent};`);
    return '';
  });
}

export function checkXml(xml: string): { problems: string[]; elements: XmlElement[] } {
  const problems: string[] = [];
  const elements: XmlElement[] = [];
  if (INVALID_CHAR.test(xml)) problems.push('contains a character XML 1.0 forbids');
  let i = 0;
  if (xml.startsWith('<?xml')) i = xml.indexOf('?>') + 2;
  const stack: XmlElement[] = [];
  let roots = 0;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const text = xml.slice(i, lt < 0 ? xml.length : lt);
    if (text.includes(']]>')) problems.push('"]]>" in text');
    const decoded = decode(text, problems);
    if (stack.length > 0) stack[stack.length - 1]!.text += decoded;
    else if (text.trim() !== '') problems.push(`text outside the root: ${JSON.stringify(text.slice(0, 40))}`);
    if (lt < 0) break;
    const gt = xml.indexOf('>', lt);
    if (gt < 0) {
      problems.push('unterminated tag');
      break;
    }
    let tag = xml.slice(lt + 1, gt);
    // ">" inside a quoted attribute value: extend to the real end of the tag.
    let end = gt;
    while ((tag.match(/"/g) ?? []).length % 2 === 1) {
      end = xml.indexOf('>', end + 1);
      if (end < 0) {
        problems.push('unterminated attribute');
        return { problems, elements };
      }
      tag = xml.slice(lt + 1, end);
    }
    i = end + 1;
    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim();
      const open = stack.pop();
      if (!open || open.name !== name) problems.push(`</${name}> closes <${open?.name ?? 'nothing'}>`);
      continue;
    }
    const selfClosing = tag.endsWith('/');
    const body = selfClosing ? tag.slice(0, -1) : tag;
    const nameMatch = NAME.exec(body);
    if (!nameMatch) {
      problems.push(`bad tag <${tag.slice(0, 30)}>`);
      continue;
    }
    const el: XmlElement = { name: nameMatch[0], attrs: {}, text: '' };
    let rest = body.slice(nameMatch[0].length);
    while (rest.trim() !== '') {
      const m = /^\s+([A-Za-z_:][A-Za-z0-9_:.-]*)="([^"]*)"/.exec(rest);
      if (!m) {
        problems.push(`bad attributes in <${el.name}>: ${JSON.stringify(rest.slice(0, 40))}`);
        break;
      }
      if (m[2]!.includes('<')) problems.push(`raw "<" in attribute ${m[1]} of <${el.name}>`);
      if (m[1]! in el.attrs) problems.push(`duplicate attribute ${m[1]} in <${el.name}>`);
      el.attrs[m[1]!] = decode(m[2]!, problems);
      rest = rest.slice(m[0].length);
    }
    elements.push(el);
    if (stack.length === 0) roots += 1;
    if (!selfClosing) stack.push(el);
  }
  if (stack.length > 0) problems.push(`unclosed <${stack.map((e) => e.name).join('>, <')}>`);
  if (roots !== 1) problems.push(`${roots} root elements`);
  return { problems, elements };
}
