//! SLOG2_Scan_* through the exported functions: the rows a C caller gets,
//! in calls of any size (many of the library's internal sub-batches per
//! call, composites across sub-batch boundaries), equal the core scan's;
//! too-small arrays, EOF, closed files and handles give their codes with
//! nothing written.

use std::ffi::{c_char, c_int, CString};
use std::path::Path;

use slog2::read::Rows;
use slog2::*;
use slog2_capi::slog2::*;

fn open_r(p: &Path) -> SLOG2_File {
    let c = CString::new(p.to_str().unwrap()).unwrap();
    let mut fp: SLOG2_File = std::ptr::null_mut();
    // SAFETY: valid string and out-pointer.
    assert_eq!(
        unsafe { SLOG2_Open(c.as_ptr(), b'r' as c_char, &mut fp) },
        SLOG2_OK
    );
    fp
}

/// Caller-side columns of capacity `cap` rows and `icap` info bytes.
struct Cols {
    kind: Vec<c_int>,
    category: Vec<c_int>,
    start: Vec<f64>,
    end: Vec<f64>,
    line0: Vec<c_int>,
    line1: Vec<c_int>,
    num_real: Vec<i64>,
    info_offset: Vec<c_int>,
    info_len: Vec<c_int>,
    time0: Vec<f64>,
    time1: Vec<f64>,
    parent: Vec<c_int>,
    info: Vec<c_char>,
}

impl Cols {
    fn new(cap: usize, icap: usize) -> Cols {
        Cols {
            kind: vec![-9; cap],
            category: vec![0; cap],
            start: vec![0.0; cap],
            end: vec![0.0; cap],
            line0: vec![0; cap],
            line1: vec![0; cap],
            num_real: vec![0; cap],
            info_offset: vec![0; cap],
            info_len: vec![0; cap],
            time0: vec![0.0; cap],
            time1: vec![0.0; cap],
            parent: vec![0; cap],
            info: vec![0; icap.max(1)],
        }
    }
    fn ptrs(&mut self) -> SLOG2_Query_columns {
        SLOG2_Query_columns {
            kind: self.kind.as_mut_ptr(),
            category: self.category.as_mut_ptr(),
            start: self.start.as_mut_ptr(),
            end: self.end.as_mut_ptr(),
            line0: self.line0.as_mut_ptr(),
            line1: self.line1.as_mut_ptr(),
            num_real: self.num_real.as_mut_ptr(),
            info_offset: self.info_offset.as_mut_ptr(),
            info_len: self.info_len.as_mut_ptr(),
            time0: self.time0.as_mut_ptr(),
            time1: self.time1.as_mut_ptr(),
            parent: self.parent.as_mut_ptr(),
        }
    }
}

/// One row as comparable values; `parent` relative to the record's first row.
type Row = (c_int, c_int, [u64; 4], c_int, c_int, i64, c_int, Vec<u8>);

fn core_rows(r: &Rows) -> Vec<Row> {
    (0..r.len())
        .map(|i| {
            let head = if r.parent[i] >= 0 {
                i as c_int - r.parent[i]
            } else {
                -1
            };
            (
                r.kind[i] as c_int,
                r.category[i],
                [
                    r.start[i].to_bits(),
                    r.end[i].to_bits(),
                    r.time0[i].to_bits(),
                    r.time1[i].to_bits(),
                ],
                r.line0[i],
                r.line1[i],
                r.num_real[i],
                head,
                r.info_of(i).to_vec(),
            )
        })
        .collect()
}

/// The whole scan through C, each call with room for `step` rows and
/// `istep` info bytes (grown when the library says the next record needs
/// more). Rows are written one call after the other at increasing `pos`.
fn c_scan(fp: SLOG2_File, total: usize, step: usize, istep: usize) -> Vec<Row> {
    let mut sc: SLOG2_Scan = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { SLOG2_Scan_open(fp, &mut sc) }, SLOG2_OK);
    let icap = total * 64 + 64;
    let mut c = Cols::new(total + 1, icap);
    let cols = c.ptrs();
    let (mut pos, mut ipos) = (0 as c_int, 0 as c_int);
    let mut out = Vec::new();
    let (mut step, mut istep) = (step, istep);
    loop {
        let (p0, i0) = (pos, ipos);
        let max = (pos as usize + step).min(total + 1) as c_int;
        let imax = (ipos as usize + istep).min(icap) as c_int;
        let (mut n, mut st) = (-1, SLOG2_Query_stats::default());
        // SAFETY: columns hold total + 1 rows, info icap bytes.
        let rc = unsafe {
            SLOG2_Scan_next(
                sc,
                &mut n,
                &cols,
                &mut pos,
                max,
                c.info.as_mut_ptr(),
                &mut ipos,
                imax,
                &mut st,
            )
        };
        if rc == SLOG2_ERR_EOF {
            assert_eq!(n, 0);
            break;
        }
        if rc == SLOG2_ERR_ARRAY_TOO_SMALL {
            assert_eq!((pos, ipos), (p0, i0), "nothing written");
            let (mut nr, mut ni) = (0, 0);
            // SAFETY: valid out-pointers.
            assert_eq!(
                unsafe { SLOG2_Scan_next_size(sc, &mut nr, &mut ni) },
                SLOG2_OK
            );
            assert_eq!(nr, n);
            assert!(nr as usize > step || ni as usize > istep);
            step = step.max(nr as usize);
            istep = istep.max(ni as usize);
            continue;
        }
        assert_eq!(rc, SLOG2_OK);
        assert_eq!(pos - p0, n);
        assert!(n > 0 && n as usize <= step);
        for i in p0 as usize..pos as usize {
            let info = if c.info_offset[i] >= 0 {
                let o = c.info_offset[i] as usize;
                c.info[o..o + c.info_len[i] as usize]
                    .iter()
                    .map(|&b| b as u8)
                    .collect()
            } else {
                assert_eq!(c.info_len[i], 0);
                Vec::new()
            };
            // Parents are numbered from this call's first row.
            let head = if c.parent[i] >= 0 {
                assert!((c.parent[i] as usize) < i - p0 as usize);
                (i - p0 as usize) as c_int - c.parent[i]
            } else {
                -1
            };
            out.push((
                c.kind[i],
                c.category[i],
                [
                    c.start[i].to_bits(),
                    c.end[i].to_bits(),
                    c.time0[i].to_bits(),
                    c.time1[i].to_bits(),
                ],
                c.line0[i],
                c.line1[i],
                c.num_real[i],
                head,
                info,
            ));
        }
    }
    assert_eq!(c.kind[pos as usize], -9, "nothing written past the rows");
    // SAFETY: valid handle pointer.
    assert_eq!(unsafe { SLOG2_Scan_close(&mut sc) }, SLOG2_OK);
    assert!(sc.is_null());
    out
}

fn composites_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("c.slog2");
    let mut w = Slog2Writer::create(
        &path,
        WriterOptions {
            leaf_bytesize: 8192,
            ..Default::default()
        },
    )
    .unwrap();
    let mut s = Category::new(1, "S", Topology::State, Color::rgba(1, 2, 3, 255), 1);
    s.info = InfoFormat::parse("n=%d").unwrap();
    w.add_category(s).unwrap();
    w.add_category(Category::new(
        2,
        "C",
        Topology::State,
        Color::rgba(1, 1, 1, 255),
        1,
    ))
    .unwrap();
    for i in 0..40_000u32 {
        let t = i as f64;
        let mut a = Primitive::state(1, (i % 7) as i32, t, t + 0.5);
        a.info = i.to_be_bytes().as_slice().into();
        let d = if i % 3 == 0 {
            Drawable::Composite(Composite {
                category: 2,
                info: Default::default(),
                members: vec![a, Primitive::state(1, 3, t + 0.25, t + 0.75)],
            })
        } else {
            Drawable::Primitive(a)
        };
        w.add_drawable(d).unwrap();
    }
    w.finish().unwrap();
    path
}

#[test]
fn c_scan_equals_core_scan_in_calls_of_any_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = composites_file(dir.path());
    let want = core_rows(&Slog2File::open(&path).unwrap().scan_rows().unwrap());
    assert!(
        want.len() > 3 * 16 * 1024,
        "more rows than several sub-batches"
    );
    let fp = open_r(&path);
    for (step, istep) in [
        (usize::MAX / 4, usize::MAX / 4),
        (50_000, 1 << 20),
        (1, 1),
        (2, 0),
        (7, 9),
        (0, 0),
    ] {
        let step = step.min(want.len() + 1);
        assert_eq!(
            c_scan(fp, want.len(), step, istep),
            want,
            "calls of {step} rows, {istep} bytes"
        );
    }
    let mut fp = fp;
    // SAFETY: valid handle pointer.
    assert_eq!(unsafe { SLOG2_Close(&mut fp) }, SLOG2_OK);
}

#[test]
fn scan_handle_misuse_gives_codes() {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/trace-sample/data.slog2");
    let mut fp = open_r(&p);
    let mut sc: SLOG2_Scan = std::ptr::null_mut();
    let mut c = Cols::new(64, 4096);
    let cols = c.ptrs();
    let (mut n, mut pos, mut ipos) = (0, 0, 0);
    // SAFETY (all calls below): pointers are valid or deliberately NULL.
    unsafe {
        assert_eq!(
            SLOG2_Scan_open(fp, std::ptr::null_mut()),
            SLOG2_ERR_NULL_ARG
        );
        assert_eq!(
            SLOG2_Scan_open(std::ptr::null_mut(), &mut sc),
            SLOG2_ERR_BAD_HANDLE
        );
        assert!(sc.is_null());
        assert_eq!(
            SLOG2_Scan_next(
                std::ptr::null_mut(),
                &mut n,
                &cols,
                &mut pos,
                4,
                c.info.as_mut_ptr(),
                &mut ipos,
                4,
                std::ptr::null_mut()
            ),
            SLOG2_ERR_BAD_HANDLE
        );
        assert_eq!(SLOG2_Scan_open(fp, &mut sc), SLOG2_OK);
        // A file handle is not a scan handle and vice versa.
        assert_eq!(
            SLOG2_Scan_next_size(fp as SLOG2_Scan, &mut n, &mut pos),
            SLOG2_ERR_BAD_HANDLE
        );
        let (mut a, mut b) = (0.0, 0.0);
        assert_eq!(
            SLOG2_Get_total_time(sc as SLOG2_File, &mut a, &mut b),
            SLOG2_ERR_BAD_HANDLE
        );
        // Negative pos, NULL n_out, NULL columns: nothing consumed.
        pos = -1;
        assert_eq!(
            SLOG2_Scan_next(
                sc,
                &mut n,
                &cols,
                &mut pos,
                4,
                c.info.as_mut_ptr(),
                &mut ipos,
                4,
                std::ptr::null_mut()
            ),
            SLOG2_ERR_BAD_ARG
        );
        pos = 0;
        assert_eq!(
            SLOG2_Scan_next(
                sc,
                std::ptr::null_mut(),
                &cols,
                &mut pos,
                4,
                c.info.as_mut_ptr(),
                &mut ipos,
                4,
                std::ptr::null_mut()
            ),
            SLOG2_ERR_NULL_ARG
        );
        assert_eq!(
            SLOG2_Scan_next(
                sc,
                &mut n,
                std::ptr::null(),
                &mut pos,
                4,
                c.info.as_mut_ptr(),
                &mut ipos,
                4,
                std::ptr::null_mut()
            ),
            SLOG2_ERR_NULL_ARG
        );
        // No room: too small, nothing written, the size says what is needed.
        assert_eq!(
            SLOG2_Scan_next(
                sc,
                &mut n,
                &cols,
                &mut pos,
                0,
                c.info.as_mut_ptr(),
                &mut ipos,
                4,
                std::ptr::null_mut()
            ),
            SLOG2_ERR_ARRAY_TOO_SMALL
        );
        assert!(n >= 1);
        assert_eq!((pos, c.kind[0]), (0, -9));
        let (mut nr, mut ni) = (0, 0);
        assert_eq!(SLOG2_Scan_next_size(sc, &mut nr, &mut ni), SLOG2_OK);
        assert_eq!(nr, n);
        assert!(ni >= 0);
        let mut first = 0;
        assert_eq!(
            SLOG2_Scan_next(
                sc,
                &mut first,
                &cols,
                &mut pos,
                nr.max(4),
                c.info.as_mut_ptr(),
                &mut ipos,
                ni.max(4),
                std::ptr::null_mut()
            ),
            SLOG2_OK
        );
        assert!(first >= 1 && pos == first);
        // Closing the file ends the scan; the scan handle still closes.
        assert_eq!(SLOG2_Close(&mut fp), SLOG2_OK);
        pos = 0;
        ipos = 0;
        assert_eq!(
            SLOG2_Scan_next(
                sc,
                &mut n,
                &cols,
                &mut pos,
                4,
                c.info.as_mut_ptr(),
                &mut ipos,
                4,
                std::ptr::null_mut()
            ),
            SLOG2_ERR_BAD_HANDLE
        );
        assert!(std::ffi::CStr::from_ptr(SLOG2_Get_last_error())
            .to_str()
            .unwrap()
            .contains("was closed"));
        assert_eq!(SLOG2_Scan_close(&mut sc), SLOG2_OK);
        assert!(sc.is_null());
        assert_eq!(SLOG2_Scan_close(&mut sc), SLOG2_ERR_BAD_HANDLE);
        assert_eq!(SLOG2_Scan_close(std::ptr::null_mut()), SLOG2_ERR_NULL_ARG);
    }
}
