/**
 * A small arithmetic evaluator (+ - * / parentheses, unary minus) so the example's calculator tool
 * never reaches for `eval` on model-produced text.
 */
export function evaluateArithmetic(expression: string): number {
  const tokens = expression.match(/\d+(?:\.\d+)?|[-+*/()]/g) ?? [];
  if (tokens.join("") !== expression.replace(/\s+/g, "")) {
    throw new Error(`Unsupported characters in expression: ${expression}`);
  }
  let pos = 0;
  const peek = (): string | undefined => tokens[pos];
  const next = (): string | undefined => tokens[pos++];

  function primary(): number {
    const token = next();
    if (token === "(") {
      const value = sum();
      if (next() !== ")") throw new Error("Missing closing parenthesis");
      return value;
    }
    if (token === "-") return -primary();
    if (token === undefined || Number.isNaN(Number(token))) throw new Error(`Unexpected token: ${token}`);
    return Number(token);
  }
  function product(): number {
    let value = primary();
    while (peek() === "*" || peek() === "/") {
      const op = next();
      const rhs = primary();
      value = op === "*" ? value * rhs : value / rhs;
    }
    return value;
  }
  function sum(): number {
    let value = product();
    while (peek() === "+" || peek() === "-") {
      const op = next();
      const rhs = product();
      value = op === "+" ? value + rhs : value - rhs;
    }
    return value;
  }

  const result = sum();
  if (pos !== tokens.length) throw new Error(`Unexpected token: ${peek()}`);
  return result;
}
