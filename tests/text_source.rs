//! The sample text format reader: exact records, and errors that name line
//! and column for every kind of malformed input.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use slog2::error::Error;
use slog2::model::*;
use slog2::trace::text::TextSource;
use slog2::trace::{Record, TraceSource};

fn fixture(name: &str) -> PathBuf {
    common::fixture("trace-sample").join(name)
}

/// Our records printed the way the reference C client `trace_print` prints
/// what the TRACE-API returns (`capi-tests/trace_print.c`): times with `%lf`,
/// info as its byte count, composites followed by their members.
fn trace_print(records: &[Record]) -> String {
    fn methods(out: &mut String, m: &[i32]) {
        out.push_str("methods={ ");
        for x in m {
            write!(out, "{x} ").unwrap();
        }
        out.push('}');
    }
    fn primitive(out: &mut String, no: Option<usize>, stated: &TimeBox, p: &Primitive) {
        match no {
            Some(n) => write!(out, "{n} : Primitive: "),
            None => write!(out, "\tPrimitive: "),
        }
        .unwrap();
        write!(
            out,
            "index={} times=({:.6}, {:.6}) ",
            p.category, stated.start, stated.end
        )
        .unwrap();
        for v in &p.vertices {
            write!(out, "({:.6}, {}) ", v.time, v.line).unwrap();
        }
        writeln!(out, "info_sz={}", p.info.len()).unwrap();
    }
    let mut out = String::new();
    let mut no = 0;
    for r in records {
        match r {
            Record::Category(c) => {
                write!(
                    out,
                    "Category: index={} shape={} color=({},{},{},{}) width={} legend={} ",
                    c.index,
                    c.topology as i32,
                    c.color.red,
                    c.color.green,
                    c.color.blue,
                    c.color.alpha,
                    c.width,
                    c.name
                )
                .unwrap();
                if !c.info.is_empty() {
                    write!(out, "label=< {} > ", c.info.label()).unwrap();
                }
                if !c.methods.is_empty() {
                    methods(&mut out, &c.methods);
                }
                out.push('\n');
            }
            Record::Primitive(p) => {
                no += 1;
                primitive(&mut out, Some(no), &p.stated, &p.primitive);
            }
            Record::Composite(c) => {
                no += 1;
                writeln!(
                    out,
                    "{no} : Composite: index={} times=({:.6}, {:.6}) Nprimes={} info_sz={}",
                    c.composite.category,
                    c.stated.start,
                    c.stated.end,
                    c.composite.members.len(),
                    c.composite.info.len()
                )
                .unwrap();
                for (m, b) in c.composite.members.iter().zip(&c.member_boxes) {
                    primitive(&mut out, None, b, m);
                }
            }
            Record::YCoordMap(m) => {
                writeln!(
                    out,
                    "YCoordMap: {}[{}][{}]",
                    m.title,
                    m.rows.len(),
                    m.column_labels.len() + 1
                )
                .unwrap();
                out.push_str("LineID -> ");
                for l in &m.column_labels {
                    write!(out, "{l} ").unwrap();
                }
                out.push('\n');
                for (line, vals) in &m.rows {
                    write!(out, "{line} -> ").unwrap();
                    for v in vals {
                        write!(out, "{v} ").unwrap();
                    }
                    out.push('\n');
                }
                if !m.methods.is_empty() {
                    methods(&mut out, &m.methods);
                    out.push('\n');
                }
            }
        }
    }
    out
}

fn read_all(path: &Path) -> Vec<Record> {
    let mut s = TextSource::open(path).unwrap();
    let mut v = Vec::new();
    while let Some(r) = s.next_record().unwrap() {
        v.push(r);
    }
    assert_eq!(s.progress(), Some(1.0));
    v
}

/// Every sample trace gives, record by record, what the reference sample
/// reader returns through the TRACE-API (its `trace_print` output).
#[test]
fn matches_reference_trace_print() {
    let mut names = vec!["data", "arrow", "onetimeline"];
    let errtime: Vec<String> = (1..=9).map(|i| format!("errtime{i}")).collect();
    names.extend(errtime.iter().map(String::as_str));
    for name in names {
        let ours = trace_print(&read_all(&fixture(&format!("{name}.txt"))));
        let want = std::fs::read_to_string(fixture(&format!("{name}.trace_print.txt"))).unwrap();
        let (o, w): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), want.lines().collect());
        for (i, (a, b)) in o.iter().zip(&w).enumerate() {
            assert_eq!(a, b, "{name}.trace_print.txt line {}", i + 1);
        }
        assert_eq!(o.len(), w.len(), "{name}: number of lines");
    }
}

#[test]
fn fixture_details() {
    let r = read_all(&fixture("data.txt"));
    let Record::Category(c) = &r[0] else { panic!() };
    assert_eq!(
        (c.index, c.name.as_str(), c.topology, c.width),
        (0, "message", Topology::Arrow, 3)
    );
    assert_eq!(c.info.tokens, b"dd");
    assert_eq!(c.info.keys, vec!["msg_tag=", ", msg_size=", ""]);
    assert!(c.color.modifiable);
    let Record::Category(c) = &r[4] else { panic!() };
    assert_eq!(c.methods, vec![1]);
    // Y-map rows stay in file order.
    let Record::YCoordMap(m) = r.last().unwrap() else {
        panic!()
    };
    assert_eq!(m.title, "ProcessorView");
    assert_eq!(m.rows[0], (0, vec![0, 0, 0]));
    let Record::YCoordMap(m) = &r[r.len() - 3] else {
        panic!()
    };
    assert_eq!(m.rows[0], (4, vec![1, 1]));
    assert!(m.methods.is_empty());
    // arrow.txt: a backwards arrow keeps its vertex order.
    let r = read_all(&fixture("arrow.txt"));
    let Record::Primitive(p) = &r[18] else {
        panic!()
    };
    assert_eq!(p.stated, TimeBox::new(1.1, 1.2));
    assert_eq!(
        p.primitive.vertices.as_slice(),
        [Vertex::new(1.2, 0), Vertex::new(1.1, 1)]
    );
    assert_eq!(p.primitive.info.as_slice(), [0, 0, 0, 6, 0, 0, 0, 40]);
}

const CATS: &str = "Category[ index=0 name=message topo=Arrow color=(255,255,255,255,true) width=3 < msg_tag=%d, msg_size=%d > ]\n\
Category[ index=1 name=S topo=State color=(1,2,3,4,false) width=1 ]\n";

fn records(text: &str) -> Result<Vec<Record>, Error> {
    let mut s = TextSource::from_str("t.txt", text);
    let mut v = Vec::new();
    while let Some(r) = s.next_record()? {
        v.push(r);
    }
    Ok(v)
}

fn err_at(text: &str) -> (usize, usize, String) {
    match records(text) {
        Err(Error::Parse { loc, detail }) => (loc.line, loc.column, detail),
        other => panic!("expected a parse error for {text:?}, got {other:?}"),
    }
}

#[test]
fn data_txt_records() {
    let path = fixture("data.txt");
    let mut s = TextSource::open(&path).unwrap();
    let mut n = (0, 0, 0, 0);
    let mut first_arrow_info = None;
    while let Some(r) = s.next_record().unwrap() {
        match r {
            Record::Category(_) => n.0 += 1,
            Record::Primitive(p) => {
                n.1 += 1;
                if p.primitive.category == 0 && first_arrow_info.is_none() {
                    first_arrow_info = Some(p.primitive.info.clone());
                    assert_eq!(s.location(), format!("{}:14", path.display()));
                }
            }
            Record::Composite(c) => {
                n.2 += 1;
                if n.2 == 1 {
                    assert_eq!(
                        c.composite.info.to_vec(),
                        vec![0xff, 0xff, 0xff, 0xf6, 0, 0, 0, 10]
                    );
                    assert_eq!(c.composite.members.len(), 3);
                }
            }
            Record::YCoordMap(m) => {
                n.3 += 1;
                if n.3 == 3 {
                    assert_eq!(m.column_labels, vec!["lblA", "labelB", "lblCC"]);
                    assert_eq!(m.rows[4], (4, vec![1, 0, 0]));
                }
            }
        }
    }
    assert_eq!(n, (11, 6, 3, 3));
    assert_eq!(
        first_arrow_info.unwrap().to_vec(),
        vec![0, 0, 0, 3, 0, 0, 0x07, 0xd0]
    );
}

#[test]
fn every_token_type_encodes() {
    let text = "Category[ index=2 name=T topo=Event color=(0,0,0,255,true) width=1 < h=%h l=%l x=%x X=%X e=%e E=%E s=%s d=%d > ]\n\
                Primitive[ TimeBBox(1,1) Category=2 (1, 0) < h=-2 l=5000000000 x=ff X=0x1 e=1.5 E=0.25 s=abc d=-1 > ]\n";
    let r = records(text).unwrap();
    let Record::Primitive(p) = &r[1] else {
        panic!()
    };
    let mut want = vec![0xff, 0xfe];
    want.extend(5_000_000_000i64.to_be_bytes());
    want.extend([0, 0, 0, 0xff]);
    want.extend(1i64.to_be_bytes());
    want.extend(1.5f32.to_be_bytes());
    want.extend(0.25f64.to_be_bytes());
    want.extend([0, 3, b'a', b'b', b'c']);
    want.extend((-1i32).to_be_bytes());
    assert_eq!(p.primitive.info.to_vec(), want);
}

#[test]
fn comments_and_methods() {
    let text = format!("# comment\n  Primitive[ indented lines are comments ]\n{CATS}Category[ index=5 name=M topo=State color=(1,1,1,1,true) width=1 {{ 1 7 }} ]\n");
    let r = records(&text).unwrap();
    assert_eq!(r.len(), 3);
    let Record::Category(c) = &r[2] else { panic!() };
    assert_eq!(c.methods, vec![1, 7]);
    let Record::Category(s) = &r[1] else { panic!() };
    assert!(!s.color.modifiable);
}

const HCAT: &str = "Category[ index=2 name=H topo=Event color=(0,0,0,0,true) width=1 < h=%h > ]\n";

/// Each kind of malformed record: an `Error::Parse` on the right line, with
/// the column of the offending text and a message saying what is wrong.
#[test]
fn errors_name_line_and_column() {
    // (lines before, bad line, anchor in the bad line, offset from the
    // anchor, text the message must contain)
    let p = |s: &str| format!("{CATS}Primitive[ TimeBBox(0.1,0.2) Category={s} ]");
    #[rustfmt::skip]
    let cases: Vec<(&str, String, &str, usize, &str)> = vec![
        // numbers and fields
        (CATS, p("1 (0.1, 0) (0.2, 0)").replace("0.2)", "x)"), "x)", 0, "number"),
        (CATS, "Primitive[ TimeBBox(0.1,0.2) (0.1, 0) (0.2, 0) ]".into(), "(0.1, 0)", 0, "Category="),
        (CATS, "Primitive[ TimeBBox(0.1,0.2) Category=99999999999 (0.1, 0) ]".into(), "999", 0, "out of range"),
        (CATS, "Primitive[ TimeBBox(0.1,0.2) Category=1 ]".into(), "]", 0, "vertex"),
        (CATS, "Primitive[ TimeBBox(0.1,0.2) Category=1 (0.1 , 0) ]".into(), " , 0", 0, "expected ','"),
        (CATS, "Primitive[ TimeBBox(0.1,0.2) Category=1 (0.1, x) ]".into(), "x)", 0, "integer"),
        (CATS, "Primitive[ TimeBBox(0.1,0.2) Category=1 (0.1, 0) , (0.2, 0) ]".into(), ", (0.2", 0, "unexpected text"),
        (CATS, "Primitive[TimeBBox(0.1,0.2) Category=1 (0.1, 0) ]".into(), "Category", 0, "TimeBBox("),
        // categories
        ("", "Category[ index=3 name=X topo=Blob color=(1,2,3,4,true) width=1 ]".into(), "Blob", 0, "topology"),
        ("", "Category[ index=3 name=X topo=State color=(1,2,300,4,true) width=1 ]".into(), "300", 0, "0..255"),
        ("", "Category[ index=3 name=X topo=State color=(1,2,3,4,yes) width=1 ]".into(), "yes", 0, "'true)' or 'false)'"),
        ("", "Category[ index=3 name=X topo=State color=(1,2,3) width=1 ]".into(), ") width", 0, "expected ','"),
        ("", "Category[ index=3 name=X topo=State color=(1,2,3,4,true) width=999 ]".into(), "999", 0, "width"),
        ("", "Category[ index=-4 name=X topo=State color=(1,2,3,4,true) width=1 ]".into(), "-4", 0, "reserved"),
        ("", "Category[ index=3 topo=State color=(1,2,3,4,true) width=1 ]".into(), "topo", 0, "name="),
        ("", "Category[ index=3 name=X topo=State color=(1,2,3,4,true) width=1 < bad=% > ]".into(), "bad=%", 0, "type letter"),
        ("", "Category[ index=3 name=X topo=State color=(1,2,3,4,true) width=1 < a=%q > ]".into(), "a=%q", 0, "%q"),
        ("", "Category[ index=3 name=X topo=State color=(1,2,3,4,true) width=1 < a=%d ]".into(), "< a", 0, "closing"),
        ("", "Category[ index=3 name=X topo=State color=(1,2,3,4,true) width=1 { 1 x } ]".into(), "x }", 0, "integer"),
        // info payloads
        (CATS, p("0 (0.1, 0) (0.2, 1) < msg_tag=3; msg_size=4 >"), "; msg", 0, "label"),
        (CATS, p("0 (0.1, 0) (0.2, 1) < msg_tag=3, msg_size=4 extra >"), "extra", 0, "left over"),
        (CATS, p("0 (0.1, 0) (0.2, 1) < msg_tag=3, msg_size= >"), " >", 0, "integer"),
        (CATS, p("0 (0.1, 0) (0.2, 1) < msg_tag=3, msg_size=4 ]"), "< msg", 0, "closing"),
        (CATS, p("1 (0.1, 0) (0.2, 0) < v=1 >"), "< v=1", 0, "no label"),
        (CATS, p("9 (0.1, 0) (0.2, 0) < v=1 >"), "< v=1", 0, "not defined"),
        (HCAT, "Primitive[ TimeBBox(1,1) Category=2 (1, 0) < h=40000 > ]".into(), "40000", 0, "16 bits"),
        // composites
        (CATS, "Composite[ TimeBBox(0.1,0.2) Category=1 NumPrimes=0 ]".into(), "0 ]", 0, "at least one member"),
        (CATS, "Composite[ TimeBBox(0.1,0.2) Category=1 ]".into(), "]", 0, "NumPrimes="),
        (CATS, "Composite[ TimeBBox(0.1,0.2) Category=1 NumPrimes=1 2 ]".into(), "2 ]", 0, "unexpected text"),
        // y-maps
        ("", "YCoordMap[ Nrows=1 Ncolumns=1 Nmethods=0 title=T colnames=< > ( 0 ) ]".into(), "1 Nmethods", 0, "Ncolumns"),
        ("", "YCoordMap[ Nrows=0 Ncolumns=2 Nmethods=0 title=T colnames=< a > ]".into(), "0 Ncol", 0, "Nrows"),
        ("", "YCoordMap[ Nrows=2 Ncolumns=2 Nmethods=0 title=T colnames=< a > ( 0 1 ) ]".into(), "]", 0, "row 2 of Nrows=2"),
        ("", "YCoordMap[ Nrows=1 Ncolumns=2 Nmethods=0 title=T colnames=< a > ( 0 1 ) ( 1 2 ) ]".into(), "( 1 2", 0, "more rows"),
        ("", "YCoordMap[ Nrows=1 Ncolumns=3 Nmethods=0 title=T colnames=< a b > ( 0 1 ) ]".into(), ") ]", 0, "integer"),
        ("", "YCoordMap[ Nrows=1 Ncolumns=2 Nmethods=0 title=T colnames=< a > ( 0 1 2 ) ]".into(), "2 )", 0, "')'"),
        ("", "YCoordMap[ Nrows=1 Ncolumns=3 Nmethods=0 title=T colnames=< a > ( 0 1 2 ) ]".into(), "> (", 1, "column name"),
        ("", "YCoordMap[ Nrows=1 Ncolumns=2 Nmethods=1 title=T colnames=< a > ( 0 1 ) ]".into(), "1 title", 0, "Nmethods"),
        ("", "YCoordMap[ Nrows=1 Ncolumns=2 Nmethods=0 title=T colnames=< a > ( 0 1 ) { 1 } ]".into(), "0 title", 0, "Nmethods"),
        ("", "YCoordMap[ Nrows=1 Ncolumns=2 Nmethods=0 title=T colnames=< a ( 0 1 ) ]".into(), "( 0 1 ) ]", 9, "no closing '>'"),
    ];
    assert!(cases.len() >= 30);
    for (before, bad, anchor, delta, needle) in cases {
        // `p(..)` cases carry CATS already.
        let (before, bad) = match bad.strip_prefix(CATS) {
            Some(b) => (CATS, b.to_string()),
            None => (before, bad),
        };
        let text = format!("{before}{bad}\n# trailing comment\n");
        let (l, col, detail) = err_at(&text);
        let want_line = before.lines().count() + 1;
        let want_col = bad.find(anchor).expect(anchor) + 1 + delta;
        assert_eq!(
            (l, col),
            (want_line, want_col),
            "line/column of {detail:?} in {bad:?}"
        );
        assert!(
            detail.contains(needle),
            "expected {needle:?} in {detail:?} for {bad:?}"
        );
    }
}

#[test]
fn composite_errors() {
    // Truncated by the end of the file: the line after the last one.
    let (l, col, d) = err_at(&format!(
        "{CATS}Composite[ TimeBBox(0.1,0.2) Category=1 NumPrimes=2 ]\nPrimitive[ TimeBBox(0.1,0.2) Category=1 (0.1, 0) (0.2, 0) ]\n"
    ));
    assert_eq!((l, col), (5, 1));
    assert!(d.contains("end of file") && d.contains("line 3"), "{d}");
    // A member line that is not a primitive (comments are not skipped there).
    let (l, col, d) = err_at(&format!(
        "{CATS}Composite[ TimeBBox(0.1,0.2) Category=1 NumPrimes=1 ]\n# oops\nPrimitive[ TimeBBox(0.1,0.2) Category=1 (0.1, 0) (0.2, 0) ]\n"
    ));
    assert_eq!((l, col), (4, 1));
    assert!(d.contains("not a Primitive"), "{d}");
    // A malformed member: its own line.
    let (l, col, d) = err_at(&format!(
        "{CATS}Composite[ TimeBBox(0.1,0.2) Category=1 NumPrimes=2 ]\nPrimitive[ TimeBBox(0.1,0.2) Category=1 (0.1, 0) (0.2, 0) ]\nPrimitive[ TimeBBox(0.1,0.2) Category=1 ]\n"
    ));
    assert_eq!((l, col), (5, 41));
    assert!(d.contains("vertex"), "{d}");
}

#[test]
fn location_and_progress() {
    let text = format!("{CATS}\n# c\nComposite[ TimeBBox(0.1,0.2) Category=1 NumPrimes=1 ]\nPrimitive[ TimeBBox(0.1,0.2) Category=1 (0.1, 0) (0.2, 0) ]\nPrimitive[ TimeBBox(0.2,0.3) Category=1 (0.2, 0) (0.3, 0) ]");
    let mut s = TextSource::from_str("t.txt", &text);
    assert_eq!(s.progress(), Some(0.0));
    let mut locs = Vec::new();
    while s.next_record().unwrap().is_some() {
        locs.push(s.location());
    }
    assert_eq!(locs, ["t.txt:1", "t.txt:2", "t.txt:5", "t.txt:7"]);
    assert_eq!(s.progress(), Some(1.0));
}

#[test]
fn crlf_whitespace_and_number_forms() {
    // CRLF line ends, tabs, no whitespace where the scanf rule allows none,
    // strtod number forms, touching vertices, an empty label.
    let text = "Category[\tindex=4 name=A topo=Arrows color=( 1, 2, 3, 4,false) width=-3 < a=%E b=%e c=%X > { 1 2 3 } ]\r\n\
                Category[ index=5 name=E topo=Event color=(9,9,9,9,true) width=1 < > ]\r\n\
                Primitive[ TimeBBox(1e-3,0x1p-9)Category=4 (1E-3,  7)(0x1p-9,-8) < a=  -inf b=1.5 c=0XFF > ]\r\n\
                Primitive[ TimeBBox(+.5,5.) Category=5 (.5,0)(5.,0) ]";
    let r = records(text).unwrap();
    let Record::Category(c) = &r[0] else { panic!() };
    assert_eq!(
        (c.topology, c.width, c.color.modifiable),
        (Topology::Arrow, -3, false)
    );
    assert_eq!(
        c.color,
        Color {
            modifiable: false,
            ..Color::rgba(1, 2, 3, 4)
        }
    );
    assert_eq!(c.methods, vec![1, 2, 3]);
    let Record::Category(c) = &r[1] else { panic!() };
    assert!(c.info.is_empty());
    let Record::Primitive(p) = &r[2] else {
        panic!()
    };
    assert_eq!(p.stated, TimeBox::new(1e-3, 1.0 / 512.0));
    assert_eq!(
        p.primitive.vertices.to_vec(),
        vec![Vertex::new(1e-3, 7), Vertex::new(1.0 / 512.0, -8)]
    );
    let mut want = f64::NEG_INFINITY.to_be_bytes().to_vec();
    want.extend(1.5f32.to_be_bytes());
    want.extend(255u64.to_be_bytes());
    assert_eq!(p.primitive.info.to_vec(), want);
    let Record::Primitive(p) = &r[3] else {
        panic!()
    };
    assert_eq!(p.stated, TimeBox::new(0.5, 5.0));
}

#[test]
fn info_tokens_and_whitespace_rule() {
    let cats = "Category[ index=1 name=A topo=State color=(0,0,0,0,true) width=1 < %d|%x > ]\n\
                Category[ index=2 name=B topo=State color=(0,0,0,0,true) width=1 < name: %s  id=%l > ]\n";
    let r = records(&format!(
        "{cats}Primitive[ TimeBBox(0,1) Category=1 (0, 0) (1, 0) < -7|0xdeadbeef > ]\n\
         Primitive[ TimeBBox(0,1) Category=2 (0, 0) (1, 0) < name:x_y id=-9223372036854775808 > ]\n"
    ))
    .unwrap();
    let Record::Primitive(p) = &r[2] else {
        panic!()
    };
    assert_eq!(
        p.primitive.info.as_slice(),
        [0xff, 0xff, 0xff, 0xf9, 0xde, 0xad, 0xbe, 0xef]
    );
    let Record::Primitive(p) = &r[3] else {
        panic!()
    };
    let mut want = vec![0, 3, b'x', b'_', b'y'];
    want.extend(i64::MIN.to_be_bytes());
    assert_eq!(p.primitive.info.to_vec(), want);
    // %x wider than 32 bits, %s swallowing the following literal (scanf rule).
    for bad in ["< 1|1ffffffff >", "< 1|zz >"] {
        let e = records(&format!(
            "{cats}Primitive[ TimeBBox(0,1) Category=1 (0, 0) (1, 0) {bad} ]\n"
        ));
        assert!(matches!(e, Err(Error::Parse { .. })), "{bad}");
    }
    let e = records(&format!(
        "{cats}Primitive[ TimeBBox(0,1) Category=2 (0, 0) (1, 0) < name: ab,id=1 > ]\n"
    ));
    assert!(matches!(e, Err(Error::Parse { .. })));
}

#[test]
fn long_lines_and_names_have_no_limit() {
    let name = "N".repeat(5000);
    let mut text = format!("Category[ index=1 name={name} topo=State color=(1,2,3,4,true) width=1 ]\nPrimitive[ TimeBBox(0,1) Category=1");
    for i in 0..200 {
        text.push_str(&format!(" ({}, 0)", i as f64 / 200.0));
    }
    text.push_str(" (1, 0) ]\n");
    let r = records(&text).unwrap();
    let Record::Category(c) = &r[0] else { panic!() };
    assert_eq!(c.name.len(), 5000);
    let Record::Primitive(p) = &r[1] else {
        panic!()
    };
    assert_eq!(p.primitive.vertices.len(), 201);
}

/// Parse speed (run in release):
/// `cargo test --release --test text_source -- --ignored --nocapture parse_speed`.
/// Uses `$SLOG2_BENCH_TRACE`, or generates 1M drawables with
/// `scripts/gen_trace.py` (needs python3).
#[test]
#[ignore]
fn parse_speed() {
    let dir = tempfile::tempdir().unwrap();
    let path = match std::env::var_os("SLOG2_BENCH_TRACE") {
        Some(p) => PathBuf::from(p),
        None => {
            let p = dir.path().join("t1m.txt");
            let st = std::process::Command::new("python3")
                .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/gen_trace.py"))
                .arg("1000000")
                .arg(&p)
                .status()
                .expect("python3");
            assert!(st.success());
            p
        }
    };
    let bytes = std::fs::metadata(&path).unwrap().len();
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = std::time::Instant::now();
        let mut s = TextSource::open(&path).unwrap();
        let (mut records, mut vertices) = (0usize, 0usize);
        while let Some(r) = s.next_record().unwrap() {
            records += 1;
            match &r {
                Record::Primitive(p) => vertices += p.primitive.vertices.len(),
                Record::Composite(c) => vertices += c.composite.members.len(),
                _ => {}
            }
        }
        let secs = t.elapsed().as_secs_f64();
        best = best.min(secs);
        println!(
            "{records} records ({vertices} vertices/members), {:.1} MB in {secs:.3} s: {:.0} MB/s",
            bytes as f64 / 1e6,
            bytes as f64 / 1e6 / secs
        );
    }
    println!("best {best:.3} s");
}
