//! The sample text format reader: exact records, and errors that name line
//! and column for every kind of malformed input.

use slog2::error::Error;
use slog2::trace::text::TextSource;
use slog2::trace::{Record, TraceSource};

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
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures/trace-sample/data.txt");
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
                    assert_eq!(c.composite.info, vec![0xff, 0xff, 0xff, 0xf6, 0, 0, 0, 10]);
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
        first_arrow_info.unwrap(),
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
    assert_eq!(p.primitive.info, want);
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

#[test]
fn errors_name_line_and_column() {
    let cases: Vec<(String, usize, &str)> = vec![
        (format!("{CATS}Primitive[ TimeBBox(0.1,x) Category=1 (0.1, 0) (0.2, 0) ]\n"), 3, "number"),
        (format!("{CATS}Primitive[ TimeBBox(0.1,0.2) (0.1, 0) (0.2, 0) ]\n"), 3, "Category="),
        ("Category[ index=3 name=X topo=Blob color=(1,2,3,4,true) width=1 ]\n".into(), 1, "topology"),
        ("Category[ index=3 name=X topo=State color=(1,2,300,4,true) width=1 ]\n".into(), 1, "0..255"),
        (format!("{CATS}Primitive[ TimeBBox(0.1,0.2) Category=0 (0.1, 0) (0.2, 1) < msg_tag=3; msg_size=4 > ]\n"), 3, "label"),
        (format!("{CATS}Primitive[ TimeBBox(0.1,0.2) Category=1 (0.1, 0) (0.2, 0) < v=1 > ]\n"), 3, "no label"),
        (format!("{CATS}Primitive[ TimeBBox(0.1,0.2) Category=9 (0.1, 0) (0.2, 0) < v=1 > ]\n"), 3, "not defined"),
        (format!("{CATS}Composite[ TimeBBox(0.1,0.2) Category=1 NumPrimes=2 ]\nPrimitive[ TimeBBox(0.1,0.2) Category=1 (0.1, 0) (0.2, 0) ]\n"), 5, "end of file"),
        (format!("{CATS}Composite[ TimeBBox(0.1,0.2) Category=1 NumPrimes=1 ]\n# oops\n"), 4, "not a Primitive"),
        ("YCoordMap[ Nrows=1 Ncolumns=1 Nmethods=0 title=T colnames=< > ( 0 ) ]\n".into(), 1, "Ncolumns"),
        ("YCoordMap[ Nrows=2 Ncolumns=2 Nmethods=0 title=T colnames=< a > ( 0 1 ) ]\n".into(), 1, "row 2"),
        ("YCoordMap[ Nrows=1 Ncolumns=2 Nmethods=1 title=T colnames=< a > ( 0 1 ) ]\n".into(), 1, "Nmethods"),
        ("Category[ index=3 name=X topo=State color=(1,2,3,4,true) width=1 < bad=% > ]\n".into(), 1, "type letter"),
        (format!("{CATS}Primitive[ TimeBBox(0.1,0.2) Category=1 ]\n"), 3, "vertex"),
        ("Category[ index=-4 name=X topo=State color=(1,2,3,4,true) width=1 ]\n".into(), 1, "reserved"),
        ("Category[ index=3 name=X topo=State color=(1,2,3,4,true) width=999 ]\n".into(), 1, "width"),
    ];
    for (text, line, needle) in cases {
        let (l, col, detail) = err_at(&text);
        assert_eq!(l, line, "{detail} in {text:?}");
        assert!(col >= 1, "{detail}");
        assert!(
            detail.contains(needle),
            "expected {needle:?} in {detail:?} for {text:?}"
        );
    }
    // Column points at the problem.
    let (_, col, _) = err_at(&format!(
        "{CATS}Primitive[ TimeBBox(0.1,x) Category=1 (0.1, 0) (0.2, 0) ]\n"
    ));
    assert_eq!(col, "Primitive[ TimeBBox(0.1,".len() + 1);
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
