//! A validator for the part of XML Schema that the JUnit XSD of the tests uses
//! (`tests/fixtures/junit/jenkins.xsd`): global and local element declarations, named and inline
//! complex types, `sequence` and `choice` with `minOccurs`/`maxOccurs`, `complexContent` and
//! `simpleContent` extensions, attributes with `use="required"`, and the simple types
//! `xs:int`, `xs:decimal`, `xs:token` (with `minLength`), `xs:string` and a `pattern` of digit
//! classes and literals. It reads the schema itself, so the rules come from the file, not from
//! this code; anything the schema says that this subset does not understand fails loudly.
#![allow(dead_code, reason = "each test crate uses a different part of the support module")]

use roxmltree::{Document, Node};

const XS: &str = "http://www.w3.org/2001/XMLSchema";

pub struct Schema<'a> {
    root: Node<'a, 'a>,
}

impl<'a> Schema<'a> {
    pub fn new(document: &'a Document<'a>) -> Schema<'a> {
        Schema { root: document.root_element() }
    }

    /// Every violation of the schema by `xml`'s root element; empty when it is valid.
    pub fn validate(&self, xml: &Document) -> Vec<String> {
        let root = xml.root_element();
        let mut errors = Vec::new();
        match self.global("element", root.tag_name().name()) {
            Some(decl) => self.element(root, decl, &format!("/{}", root.tag_name().name()), &mut errors),
            None => errors.push(format!("no global element {}", root.tag_name().name())),
        }
        errors
    }

    fn global(&self, kind: &str, name: &str) -> Option<Node<'a, 'a>> {
        self.root.children().find(|n| is(n, kind) && n.attribute("name") == Some(name))
    }

    fn element(&self, node: Node, decl: Node<'a, 'a>, path: &str, errors: &mut Vec<String>) {
        if let Some(type_name) = decl.attribute("type") {
            match self.global("complexType", type_name) {
                Some(complex) => self.complex(node, complex, path, errors),
                None => self.simple_content(node, type_name, path, errors),
            }
            return;
        }
        if let Some(complex) = decl.children().find(|n| is(n, "complexType")) {
            self.complex(node, complex, path, errors);
        } else if let Some(simple) = decl.children().find(|n| is(n, "simpleType")) {
            no_children(node, path, errors);
            self.simple_value(&text(node), simple, &format!("{path}/text()"), errors);
        }
    }

    /// Attributes and content of a complex type (and of the types it extends).
    fn complex(&self, node: Node, complex: Node<'a, 'a>, path: &str, errors: &mut Vec<String>) {
        let mut attributes = Vec::new();
        let mut particles = Vec::new();
        let mut simple_base = None;
        self.collect(complex, &mut attributes, &mut particles, &mut simple_base);
        for attr in node.attributes() {
            if attr.namespace().is_some() {
                continue;
            }
            match attributes.iter().find(|a| a.attribute("name") == Some(attr.name())) {
                Some(decl) => self.attribute_value(attr.value(), *decl, &format!("{path}/@{}", attr.name()), errors),
                None => errors.push(format!("{path}: attribute {} is not allowed", attr.name())),
            }
        }
        for decl in &attributes {
            let name = decl.attribute("name").unwrap_or_default();
            if decl.attribute("use") == Some("required") && node.attribute(name).is_none() {
                errors.push(format!("{path}: required attribute {name} is missing"));
            }
        }
        match simple_base {
            Some(base) => {
                no_children(node, path, errors);
                self.simple_content(node, base, path, errors);
            }
            None => {
                if !text(node).trim().is_empty() {
                    errors.push(format!("{path}: text is not allowed in element-only content"));
                }
                let children: Vec<Node> = node.children().filter(Node::is_element).collect();
                let mut at = 0;
                for particle in particles {
                    self.particle(&children, &mut at, particle, path, errors);
                }
                for extra in &children[at..] {
                    errors.push(format!("{path}: element {} is not allowed here", extra.tag_name().name()));
                }
            }
        }
    }

    fn collect(
        &self,
        complex: Node<'a, 'a>,
        attributes: &mut Vec<Node<'a, 'a>>,
        particles: &mut Vec<Node<'a, 'a>>,
        simple_base: &mut Option<&'a str>,
    ) {
        for child in complex.children().filter(Node::is_element) {
            match child.tag_name().name() {
                "attribute" => attributes.push(child),
                "sequence" | "choice" => particles.push(child),
                "annotation" => {}
                "complexContent" | "simpleContent" => {
                    let extension = child.children().find(|n| is(n, "extension") || is(n, "restriction"));
                    let Some(extension) = extension else { continue };
                    let base = extension.attribute("base").unwrap_or_default();
                    match self.global("complexType", base) {
                        Some(base_type) => self.collect(base_type, attributes, particles, simple_base),
                        None => *simple_base = Some(base),
                    }
                    self.collect(extension, attributes, particles, simple_base);
                }
                other => panic!("the schema uses <xs:{other}>, which this validator does not understand"),
            }
        }
    }

    /// Matches children from `at` against a sequence or choice.
    fn particle(
        &self,
        children: &[Node],
        at: &mut usize,
        particle: Node<'a, 'a>,
        path: &str,
        errors: &mut Vec<String>,
    ) {
        let (min, max) = occurs(particle);
        let alternatives: Vec<Node> = particle.children().filter(|n| is(n, "element")).collect();
        let mut rounds = 0;
        while rounds < max {
            let before = *at;
            if particle.tag_name().name() == "choice" {
                let Some(child) = children.get(*at) else { break };
                let Some(decl) = alternatives.iter().find(|d| d.attribute("name") == Some(child.tag_name().name()))
                else {
                    break;
                };
                self.element(*child, *decl, &format!("{path}/{}", child.tag_name().name()), errors);
                *at += 1;
            } else {
                for decl in &alternatives {
                    let name = decl.attribute("name").unwrap_or_default();
                    let (min, max) = occurs(*decl);
                    let mut count = 0;
                    while count < max && children.get(*at).is_some_and(|c| c.tag_name().name() == name) {
                        self.element(children[*at], *decl, &format!("{path}/{name}[{count}]"), errors);
                        *at += 1;
                        count += 1;
                    }
                    if count < min {
                        errors
                            .push(format!("{path}: expected {min} or more <{name}>, found {count} (at child {})", *at));
                    }
                }
            }
            if *at == before {
                break;
            }
            rounds += 1;
        }
        if rounds < min && particle.tag_name().name() == "choice" {
            errors.push(format!("{path}: expected one of the choice's elements"));
        }
    }

    fn attribute_value(&self, value: &str, decl: Node<'a, 'a>, path: &str, errors: &mut Vec<String>) {
        if let Some(type_name) = decl.attribute("type") {
            self.typed(value, type_name, path, errors);
        } else if let Some(simple) = decl.children().find(|n| is(n, "simpleType")) {
            self.simple_value(value, simple, path, errors);
        }
    }

    fn simple_content(&self, node: Node, type_name: &str, path: &str, errors: &mut Vec<String>) {
        self.typed(&text(node), type_name, &format!("{path}/text()"), errors);
    }

    fn typed(&self, value: &str, type_name: &str, path: &str, errors: &mut Vec<String>) {
        match self.global("simpleType", type_name) {
            Some(simple) => self.simple_value(value, simple, path, errors),
            None => builtin(value, type_name, path, errors),
        }
    }

    fn simple_value(&self, value: &str, simple: Node<'a, 'a>, path: &str, errors: &mut Vec<String>) {
        let Some(restriction) = simple.children().find(|n| is(n, "restriction")) else {
            panic!("{path}: only restrictions are understood");
        };
        let base = restriction.attribute("base").unwrap_or("xs:string");
        for facet in restriction.children().filter(Node::is_element) {
            let facet_value = facet.attribute("value").unwrap_or_default();
            match facet.tag_name().name() {
                "minLength" if value.trim().chars().count() < facet_value.parse::<usize>().unwrap() => {
                    errors.push(format!("{path}: {value:?} is shorter than {facet_value}"));
                }
                "pattern" if !pattern(facet_value, value) => {
                    errors.push(format!("{path}: {value:?} does not match {facet_value}"))
                }
                "minLength" | "pattern" | "whiteSpace" => {}
                other => panic!("the schema uses the facet {other}, which this validator does not understand"),
            }
        }
        // A pattern on a date-time base stands in for the date-time check itself.
        if base != "xs:dateTime" {
            self.typed(value, base, path, errors);
        }
    }
}

fn builtin(value: &str, type_name: &str, path: &str, errors: &mut Vec<String>) {
    let ok = match type_name {
        "xs:int" => value.trim().parse::<i32>().is_ok(),
        "xs:decimal" => {
            let v = value.trim().trim_start_matches(['-', '+']);
            !v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '.') && v.matches('.').count() <= 1
        }
        "xs:token" => {
            !value.contains(['\n', '\r', '\t'])
                && !value.starts_with(' ')
                && !value.ends_with(' ')
                && !value.contains("  ")
        }
        "xs:string" | "pre-string" => true,
        other => panic!("the schema uses the type {other}, which this validator does not understand"),
    };
    if !ok {
        errors.push(format!("{path}: {value:?} is not a valid {type_name}"));
    }
}

/// `[0-9]{n}` classes and literal characters, the whole value.
fn pattern(pattern: &str, value: &str) -> bool {
    let mut value = value.chars().peekable();
    let mut rest = pattern;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("[0-9]") {
            let (count, after) = match after.strip_prefix('{') {
                Some(counted) => {
                    let end = counted.find('}').unwrap();
                    (counted[..end].parse::<usize>().unwrap(), &counted[end + 1..])
                }
                None => (1, after),
            };
            for _ in 0..count {
                if !value.next().is_some_and(|c| c.is_ascii_digit()) {
                    return false;
                }
            }
            rest = after;
        } else {
            let c = rest.chars().next().unwrap();
            assert!(
                !"[]{}()*+?\\|.^$".contains(c),
                "pattern {pattern} uses {c}, which this validator does not understand"
            );
            if value.next() != Some(c) {
                return false;
            }
            rest = &rest[c.len_utf8()..];
        }
    }
    value.next().is_none()
}

fn occurs(node: Node) -> (usize, usize) {
    let min = node.attribute("minOccurs").map_or(1, |m| m.parse().unwrap());
    let max = match node.attribute("maxOccurs") {
        Some("unbounded") => usize::MAX,
        Some(max) => max.parse().unwrap(),
        None => 1,
    };
    (min, max)
}

fn is(node: &Node, name: &str) -> bool {
    node.is_element() && node.tag_name().name() == name && node.tag_name().namespace() == Some(XS)
}

fn text(node: Node) -> String {
    node.children().filter(|n| n.is_text()).filter_map(|n| n.text()).collect()
}

fn no_children(node: Node, path: &str, errors: &mut Vec<String>) {
    if let Some(child) = node.children().find(Node::is_element) {
        errors.push(format!("{path}: element {} is not allowed in simple content", child.tag_name().name()));
    }
}

#[test]
fn the_validator_catches_what_the_schema_forbids() {
    let xsd =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/junit/jenkins.xsd")).unwrap();
    let xsd = Document::parse(&xsd).unwrap();
    let schema = Schema::new(&xsd);
    let suite = |attrs: &str, body: &str| {
        format!(
            "<testsuites><testsuite name=\"s\" package=\"p\" id=\"0\" timestamp=\"2026-11-23T10:00:00\" hostname=\"h\" tests=\"1\" failures=\"0\" errors=\"0\" time=\"0.1\"{attrs}><properties/>{body}<system-out/><system-err/></testsuite></testsuites>"
        )
    };
    let good = suite(
        "",
        "<testcase name=\"t\" classname=\"c\" time=\"0\"><failure type=\"x\" message=\"m\">why</failure><system-out>[0.8–2.0 s] Agent: hi</system-out></testcase>",
    );
    assert_eq!(schema.validate(&Document::parse(&good).unwrap()), Vec::<String>::new());
    let bad = [
        suite(" extra=\"1\"", ""),
        suite("", "<testcase classname=\"c\"/>"),
        suite("", "<testcase name=\"t\" time=\"soon\"/>"),
        suite("", "<testcase name=\"t\"><output>x</output></testcase>"),
        suite("", "<testcase name=\"t\"><failure><b>x</b></failure></testcase>"),
        good.replace("2026-11-23T10:00:00", "2026-11-23"),
        good.replace("<properties/>", "").replace("<system-err/>", "<system-err/><properties/>"),
        good.replace("tests=\"1\"", "tests=\"one\""),
    ];
    for xml in bad {
        assert!(!schema.validate(&Document::parse(&xml).unwrap()).is_empty(), "accepted: {xml}");
    }
}
