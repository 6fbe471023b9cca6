//! Derived metrics: arithmetic over source metrics named by slug, e.g.
//! `agent_turn_count / (customer_turn_count + 1)`. Numbers, `+ - * /`, unary minus, parentheses.

use std::collections::HashMap;

/// Evaluates `formula` with `values` for its names; the error names what went wrong.
pub fn evaluate(formula: &str, values: &HashMap<String, f64>) -> Result<f64, String> {
    let tokens = tokenize(formula)?;
    let mut parser = Parser { tokens: &tokens, at: 0, values };
    let value = parser.sum()?;
    if parser.at != tokens.len() {
        return Err(format!("unexpected {:?} in the formula", tokens[parser.at]));
    }
    if value.is_finite() { Ok(value) } else { Err("the formula divides by zero".into()) }
}

/// The names a formula reads.
pub fn names(formula: &str) -> Vec<String> {
    tokenize(formula)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|t| if let Token::Name(n) = t { Some(n) } else { None })
        .collect()
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Number(f64),
    Name(String),
    Op(char),
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() || c == '{' || c == '}' {
            i += 1;
        } else if c.is_ascii_digit() || c == '.' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            tokens.push(Token::Number(text.parse().map_err(|_| format!("{text} is not a number"))?));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Token::Name(chars[start..i].iter().collect()));
        } else if "+-*/()".contains(c) {
            tokens.push(Token::Op(c));
            i += 1;
        } else {
            return Err(format!("the formula cannot contain {c:?}"));
        }
    }
    Ok(tokens)
}

struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
    values: &'a HashMap<String, f64>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn sum(&mut self) -> Result<f64, String> {
        let mut value = self.product()?;
        while let Some(Token::Op(op @ ('+' | '-'))) = self.peek().cloned() {
            self.at += 1;
            let rhs = self.product()?;
            value = if op == '+' { value + rhs } else { value - rhs };
        }
        Ok(value)
    }

    fn product(&mut self) -> Result<f64, String> {
        let mut value = self.unary()?;
        while let Some(Token::Op(op @ ('*' | '/'))) = self.peek().cloned() {
            self.at += 1;
            let rhs = self.unary()?;
            value = if op == '*' { value * rhs } else { value / rhs };
        }
        Ok(value)
    }

    fn unary(&mut self) -> Result<f64, String> {
        if self.peek() == Some(&Token::Op('-')) {
            self.at += 1;
            return Ok(-self.unary()?);
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<f64, String> {
        let token = self.peek().cloned().ok_or("the formula ends too early")?;
        self.at += 1;
        match token {
            Token::Number(n) => Ok(n),
            Token::Name(name) => self.values.get(&name).copied().ok_or_else(|| format!("{name} has no value")),
            Token::Op('(') => {
                let value = self.sum()?;
                if self.peek() != Some(&Token::Op(')')) {
                    return Err("a parenthesis is not closed".into());
                }
                self.at += 1;
                Ok(value)
            }
            Token::Op(op) => Err(format!("unexpected {op:?} in the formula")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> HashMap<String, f64> {
        HashMap::from([
            ("agent_turn_count".into(), 6.0),
            ("customer_turn_count".into(), 4.0),
            ("call_duration".into(), 90.0),
        ])
    }

    #[test]
    fn arithmetic_with_precedence_and_parentheses() {
        assert_eq!(evaluate("agent_turn_count / (customer_turn_count + 2)", &vars()), Ok(1.0));
        assert_eq!(evaluate("1 + 2 * 3", &vars()), Ok(7.0));
        assert_eq!(evaluate("-(call_duration - 100) / 2", &vars()), Ok(5.0));
        assert_eq!(evaluate("{call_duration} / 60", &vars()), Ok(1.5));
        assert_eq!(names("a + b * 2"), vec!["a".to_owned(), "b".to_owned()]);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert!(evaluate("agent_turn_count / 0", &vars()).unwrap_err().contains("divides by zero"));
        assert!(evaluate("missing_metric + 1", &vars()).unwrap_err().contains("missing_metric"));
        assert!(evaluate("(1 + 2", &vars()).unwrap_err().contains("parenthesis"));
        assert!(evaluate("1 +", &vars()).unwrap_err().contains("ends too early"));
        assert!(evaluate("2 ^ 3", &vars()).unwrap_err().contains("'^'"));
    }
}
