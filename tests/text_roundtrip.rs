//! Property test of the sample text reader: random records (every label
//! token type, every number spelling `strtod` accepts that Rust can print,
//! comments, CRLF) are written as text and must parse back to exactly the
//! records they were made from.

use proptest::prelude::*;
use slog2::model::*;
use slog2::trace::text::TextSource;
use slog2::trace::{Record, TraceComposite, TracePrimitive, TraceSource};

/// xorshift64*: the test's own deterministic generator (proptest supplies
/// the seeds).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
    fn word(&mut self, max: u64) -> String {
        const CH: &[u8] = b"abcXYZ019_=.:+-/";
        let n = 1 + self.below(max);
        let mut s: String = (0..n).map(|_| *self.pick(CH) as char).collect();
        if self.chance(0.05) {
            s.push('é');
        }
        s
    }
    fn f64(&mut self) -> f64 {
        loop {
            let v = match self.below(4) {
                0 => f64::from_bits(self.next()),
                1 => (self.below(20_000_000) as f64) * 1e-7,
                2 => -(self.below(1000) as f64) / 8.0,
                _ => self.below(1 << 20) as f64 * 2f64.powi(self.below(60) as i32 - 30),
            };
            if !v.is_nan() {
                return v;
            }
        }
    }
}

/// A C99 hexadecimal float, as `printf("%a")` writes it.
fn hex_float(v: f64) -> String {
    let sign = if v.is_sign_negative() { "-" } else { "" };
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        if frac == 0 {
            return format!("{sign}0x0p+0");
        }
        return format!("{sign}0x0.{frac:013x}p-1022");
    }
    format!("{sign}0x1.{frac:013x}p{:+}", exp - 1023)
}

/// One of the spellings of `v` that mean exactly `v`.
fn spell(r: &mut Rng, v: f64) -> String {
    if v.is_infinite() {
        let w = r.pick(&["inf", "INF", "Infinity", "infinity"]);
        return if v < 0.0 {
            format!("-{w}")
        } else {
            w.to_string()
        };
    }
    match r.below(4) {
        0 => format!("{v}"),
        1 => format!("{v:?}"),
        2 => format!("{v:e}"),
        _ => hex_float(v),
    }
}

struct Cat {
    index: i32,
    tokens: Vec<u8>,
    /// Literal text before each token, and the trailing text.
    keys: Vec<String>,
}

/// A label and a matching info text generator.
fn make_label(r: &mut Rng) -> (String, Vec<u8>, Vec<String>) {
    let ntok = r.below(5) as usize;
    let mut tokens = Vec::new();
    let mut keys = Vec::new();
    let mut label = String::new();
    // Leading key (may be empty when there are tokens).
    let lead = if ntok == 0 || r.chance(0.7) {
        format!("{}=", r.word(5))
    } else {
        String::new()
    };
    label.push_str(&lead);
    keys.push(lead);
    for i in 0..ntok {
        let t = *r.pick(b"dxhlXeEs");
        tokens.push(t);
        label.push('%');
        label.push(t as char);
        // The text after a token starts with a character no number (or,
        // after %s, no word) can continue with.
        let last = i + 1 == ntok;
        let sep = if t == b's' {
            *r.pick(&[" ", " , ", " | "])
        } else {
            *r.pick(&[" ", ", ", "|", "; ", ":"])
        };
        let key = if last && r.chance(0.5) {
            String::new()
        } else {
            format!("{sep}{}=", r.word(4))
        };
        label.push_str(&key);
        keys.push(key);
    }
    (label, tokens, keys)
}

/// Info text and its encoding for a category.
fn make_info(r: &mut Rng, c: &Cat) -> (String, Vec<u8>) {
    let mut text = c.keys[0].clone();
    let mut bytes = Vec::new();
    for (i, &t) in c.tokens.iter().enumerate() {
        let v = match t {
            b'd' => {
                let v = r.next() as i32;
                bytes.extend(v.to_be_bytes());
                v.to_string()
            }
            b'x' => {
                let v = r.next() as u32;
                bytes.extend(v.to_be_bytes());
                if r.chance(0.5) {
                    format!("{v:x}")
                } else {
                    format!("0x{v:X}")
                }
            }
            b'h' => {
                let v = r.next() as i16;
                bytes.extend(v.to_be_bytes());
                v.to_string()
            }
            b'l' => {
                let v = r.next() as i64;
                bytes.extend(v.to_be_bytes());
                v.to_string()
            }
            b'X' => {
                let v = r.next();
                bytes.extend(v.to_be_bytes());
                format!("{v:x}")
            }
            b'e' => {
                let v = r.f64() as f32;
                bytes.extend(v.to_be_bytes());
                if v.is_infinite() {
                    if v > 0.0 { "inf" } else { "-inf" }.to_string()
                } else {
                    format!("{v:?}")
                }
            }
            b'E' => {
                let v = r.f64();
                bytes.extend(v.to_be_bytes());
                spell(r, v)
            }
            b's' => {
                let w = r.word(8);
                bytes.extend((w.len() as i16).to_be_bytes());
                bytes.extend(w.as_bytes());
                w
            }
            _ => unreachable!(),
        };
        // Numbers may be preceded by whitespace (scanf skips it).
        if r.chance(0.2) {
            text.push(' ');
        }
        text.push_str(&v);
        text.push_str(&c.keys[i + 1]);
    }
    (text, bytes)
}

fn generate(seed: u64) -> (String, Vec<Record>) {
    let mut r = Rng(seed | 1);
    let nl = if r.chance(0.3) { "\r\n" } else { "\n" };
    let mut text = String::new();
    let mut want = Vec::new();
    let mut cats: Vec<Cat> = Vec::new();
    let mut used = std::collections::HashSet::new();
    let n = 5 + r.below(40);
    for _ in 0..n {
        if r.chance(0.1) {
            let c: &str =
                r.pick::<&str>(&["# a comment", "", "   Primitive[ indented ]", "\tCategory"]);
            text.push_str(c);
            text.push_str(nl);
        }
        let kind = r.below(10);
        if kind < 2 || cats.is_empty() {
            // Category
            let mut index = r.below(1000) as i32;
            if r.chance(0.1) {
                index = (r.next() >> 33) as i32;
            }
            if !used.insert(index) {
                continue;
            }
            let name = r.word(10);
            let topology = *r.pick(&[Topology::Event, Topology::State, Topology::Arrow]);
            let topo = format!("{}{}", topology.name(), r.pick(&["", "s", "_x"]));
            let rgba: [u8; 4] = (r.next() as u32).to_be_bytes();
            let modifiable = r.chance(0.5);
            let width = r.next() as i8;
            let (label, tokens, keys) = if r.chance(0.6) {
                make_label(&mut r)
            } else {
                (String::new(), vec![], vec![])
            };
            let methods: Vec<i32> = (0..r.below(3))
                .map(|_| r.next() as i32 >> r.below(31))
                .collect();
            text.push_str(&format!(
                "Category[ index={index} name={name} topo={topo} color=({},{},{},{},{modifiable}) width={width}",
                rgba[0], rgba[1], rgba[2], rgba[3]
            ));
            if !label.is_empty() {
                text.push_str(&format!(" < {label} >"));
            }
            if !methods.is_empty() {
                text.push_str(" {");
                for m in &methods {
                    text.push_str(&format!(" {m}"));
                }
                text.push_str(" }");
            }
            text.push_str(" ]");
            text.push_str(nl);
            let mut c = Category::new(
                index,
                name,
                topology,
                Color {
                    modifiable,
                    ..Color::rgba(rgba[0], rgba[1], rgba[2], rgba[3])
                },
                width,
            );
            c.info = InfoFormat::parse(&label).unwrap();
            c.methods = methods;
            want.push(Record::Category(Box::new(c)));
            cats.push(Cat {
                index,
                tokens,
                keys,
            });
        } else if kind < 3 {
            // Y-coordinate map
            let ncols = 2 + r.below(4) as usize;
            let nrows = 1 + r.below(5) as usize;
            let title = r.word(8);
            let column_labels: Vec<String> = (1..ncols).map(|_| r.word(5)).collect();
            let rows: Vec<(i32, Vec<i32>)> = (0..nrows)
                .map(|_| {
                    (
                        r.next() as i32,
                        (1..ncols).map(|_| r.next() as i32).collect(),
                    )
                })
                .collect();
            let methods: Vec<i32> = (0..r.below(3)).map(|_| r.below(5) as i32).collect();
            text.push_str(&format!(
                "YCoordMap[ Nrows={nrows} Ncolumns={ncols} Nmethods={} title={title} colnames=< {} >",
                methods.len(),
                column_labels.join(" ")
            ));
            for (l, vals) in &rows {
                text.push_str(&format!(" ( {l}"));
                for v in vals {
                    text.push_str(&format!(" {v}"));
                }
                text.push_str(" )");
            }
            if !methods.is_empty() {
                text.push_str(" {");
                for m in &methods {
                    text.push_str(&format!(" {m}"));
                }
                text.push_str(" }");
            }
            text.push_str(" ]");
            text.push_str(nl);
            want.push(Record::YCoordMap(Box::new(YCoordMap {
                title,
                column_labels,
                rows,
                methods,
            })));
        } else {
            let composite = kind == 9;
            let prim =
                |r: &mut Rng, text: &mut String, head: &str| -> (TimeBox, i32, Vec<u8>, String) {
                    let stated = TimeBox::new(r.f64(), r.f64());
                    let (cat, info, info_text) = if r.chance(0.2) {
                        (100_000 + r.below(10) as i32, vec![], None)
                    } else {
                        let c = &cats[r.below(cats.len() as u64) as usize];
                        if !c.keys.is_empty() && r.chance(0.8) {
                            let (t, b) = make_info(r, c);
                            (c.index, b, Some(t))
                        } else {
                            (c.index, vec![], None)
                        }
                    };
                    text.push_str(&format!(
                        "{head}[ TimeBBox({},{}) Category={cat}",
                        spell(r, stated.start),
                        spell(r, stated.end)
                    ));
                    (stated, cat, info, info_text.unwrap_or_default())
                };
            let vertices = |r: &mut Rng, text: &mut String| -> Vec<Vertex> {
                let n = 1 + r.below(5);
                (0..n)
                    .map(|_| {
                        let v = Vertex::new(r.f64(), r.next() as i32);
                        let sep = if r.chance(0.2) { "" } else { " " };
                        text.push_str(&format!("{sep}({}, {})", spell(r, v.time), v.line));
                        v
                    })
                    .collect()
            };
            if composite {
                let (stated, category, info, info_text) = prim(&mut r, &mut text, "Composite");
                let nm = 1 + r.below(4) as usize;
                text.push_str(&format!(" NumPrimes={nm}"));
                if !info_text.is_empty() || (!info.is_empty()) {
                    text.push_str(&format!(" < {info_text} >"));
                }
                text.push_str(" ]");
                text.push_str(nl);
                let mut members = Vec::new();
                let mut member_boxes = Vec::new();
                for _ in 0..nm {
                    let (b, c, i, t) = prim(&mut r, &mut text, "Primitive");
                    let vs = vertices(&mut r, &mut text);
                    if !t.is_empty() {
                        text.push_str(&format!(" < {t} >"));
                    }
                    text.push_str(" ]");
                    text.push_str(nl);
                    member_boxes.push(b);
                    members.push(Primitive::new(c, vs, i));
                }
                want.push(Record::Composite(Box::new(TraceComposite {
                    stated,
                    member_boxes,
                    composite: Composite {
                        category,
                        info: info.into(),
                        members,
                    },
                })));
            } else {
                let (stated, category, info, info_text) = prim(&mut r, &mut text, "Primitive");
                let vs = vertices(&mut r, &mut text);
                if !info_text.is_empty() {
                    text.push_str(&format!(" < {info_text} >"));
                }
                text.push_str(" ]");
                text.push_str(nl);
                want.push(Record::Primitive(TracePrimitive {
                    stated,
                    primitive: Primitive::new(category, vs, info),
                }));
            }
        }
    }
    if r.chance(0.5) {
        // No line end after the last line.
        text.truncate(text.len() - nl.len());
    }
    (text, want)
}

fn parse(text: &str) -> Vec<Record> {
    let mut s = TextSource::from_str("gen.txt", text);
    let mut v = Vec::new();
    loop {
        match s.next_record() {
            Ok(Some(r)) => v.push(r),
            Ok(None) => return v,
            Err(e) => panic!("{e}\n--- text ---\n{text}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn random_records_round_trip(seed in any::<u64>()) {
        let (text, want) = generate(seed);
        let got = parse(&text);
        prop_assert_eq!(got.len(), want.len(), "record count\n{}", text);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            prop_assert_eq!(g, w, "record {}\n{}", i, text);
        }
    }
}

#[test]
fn hex_float_spelling() {
    assert_eq!(hex_float(12.0), "0x1.8000000000000p+3");
    assert_eq!(hex_float(-0.25), "-0x1.0000000000000p-2");
    assert_eq!(hex_float(5e-324), "0x0.0000000000001p-1022");
}

#[test]
#[ignore]
fn show_sample() {
    println!("{}", generate(42).0);
}
