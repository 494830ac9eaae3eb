//! SLOG2_Get_counts, SLOG2_Get_category_counts, SLOG2_Count_definition and
//! SLOG2_Scan_open_range through the exported functions: the core's counts
//! and range scans, with the array and argument codes of the API.

use std::ffi::{c_char, c_int, CStr, CString};
use std::path::{Path, PathBuf};

use slog2_capi::counts::*;
use slog2_capi::scan_range::SLOG2_Scan_open_range;
use slog2_capi::slog2::*;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/trace-sample/data.slog2")
}

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

#[test]
fn counts_follow_the_one_definition() {
    let mut fp = open_r(&data());
    let mut c = SLOG2_Counts::default();
    // SAFETY: valid handle and out-pointer.
    assert_eq!(unsafe { SLOG2_Get_counts(fp, &mut c) }, SLOG2_OK);
    assert_eq!(
        (c.drawables, c.composites, c.members, c.primitives, c.rows),
        (9, 3, 14, 20, 23)
    );
    // SAFETY: NULL out-pointer is reported, not dereferenced.
    assert_eq!(
        unsafe { SLOG2_Get_counts(fp, std::ptr::null_mut()) },
        SLOG2_ERR_NULL_ARG
    );
    // Sizing call, then the columns.
    let (mut n, mut pos) = (0, 0);
    // SAFETY: NULL columns with max 0: only n_out is written.
    let rc = unsafe {
        SLOG2_Get_category_counts(
            fp,
            &mut n,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut pos,
            0,
        )
    };
    assert_eq!((rc, n, pos), (SLOG2_ERR_ARRAY_TOO_SMALL, 9, 0));
    let k = n as usize;
    let (mut idx, mut d, mut m, mut s) = (vec![0; k], vec![0i64; k], vec![0i64; k], vec![0i64; k]);
    // SAFETY: columns of n elements, max n.
    let rc = unsafe {
        SLOG2_Get_category_counts(
            fp,
            &mut n,
            idx.as_mut_ptr(),
            d.as_mut_ptr(),
            m.as_mut_ptr(),
            s.as_mut_ptr(),
            &mut pos,
            n,
        )
    };
    assert_eq!((rc, pos), (SLOG2_OK, 9));
    assert_eq!(idx, [-3, -2, 0, 6, 13, 78, 81, 82, 183]);
    let at = |i: c_int| idx.iter().position(|&x| x == i).unwrap();
    // The composite category: 3 drawables, stored 0 (the reference's).
    assert_eq!((d[at(183)], m[at(183)], s[at(183)]), (3, 0, 0));
    // A category only used by members: stored counts them.
    assert_eq!((d[at(81)], m[at(81)], s[at(81)]), (0, 2, 2));
    assert_eq!(d.iter().sum::<i64>(), 9);
    assert_eq!(m.iter().sum::<i64>(), 14);
    // SAFETY: static text.
    let def = unsafe { CStr::from_ptr(SLOG2_Count_definition()) };
    assert_eq!(def.to_str().unwrap(), slog2::read::counts::DEFINITION);
    // SAFETY: valid handle pointer.
    assert_eq!(unsafe { SLOG2_Close(&mut fp) }, SLOG2_OK);
    // SAFETY: a closed handle is a code.
    assert_eq!(
        unsafe { SLOG2_Get_counts(fp, &mut c) },
        SLOG2_ERR_BAD_HANDLE
    );
}

/// One SLOG2_Scan_next call into columns of `cap` rows and `icap` info bytes:
/// its code and the (category, end, parent) of the rows written.
fn batch(sc: SLOG2_Scan, cap: usize, icap: usize) -> (c_int, Vec<(c_int, f64, c_int)>) {
    let (mut cat, mut end, mut par) = (vec![0; cap], vec![0.0; cap], vec![0; cap]);
    let mut info = vec![0 as c_char; icap];
    let cols = SLOG2_Query_columns {
        kind: std::ptr::null_mut(),
        category: cat.as_mut_ptr(),
        start: std::ptr::null_mut(),
        end: end.as_mut_ptr(),
        line0: std::ptr::null_mut(),
        line1: std::ptr::null_mut(),
        num_real: std::ptr::null_mut(),
        info_offset: std::ptr::null_mut(),
        info_len: std::ptr::null_mut(),
        time0: std::ptr::null_mut(),
        time1: std::ptr::null_mut(),
        parent: par.as_mut_ptr(),
    };
    let (mut n, mut pos, mut ipos) = (0, 0, 0);
    // SAFETY: columns of `cap` rows, info of `icap` bytes.
    let rc = unsafe {
        SLOG2_Scan_next(
            sc,
            &mut n,
            &cols,
            &mut pos,
            cap as c_int,
            info.as_mut_ptr(),
            &mut ipos,
            icap as c_int,
            std::ptr::null_mut(),
        )
    };
    let rows = if rc == SLOG2_OK {
        (0..n as usize).map(|i| (cat[i], end[i], par[i])).collect()
    } else {
        Vec::new()
    };
    (rc, rows)
}

/// Rows of a scan handle until EOF, in batches of 4 rows (a larger record,
/// a composite, is fetched alone with room for 64).
fn drain(sc: SLOG2_Scan) -> Vec<(c_int, f64, c_int)> {
    let mut out = Vec::new();
    loop {
        let (rc, mut rows) = match batch(sc, 4, 256) {
            (SLOG2_ERR_ARRAY_TOO_SMALL, _) => batch(sc, 64, 4096),
            r => r,
        };
        if rc == SLOG2_ERR_EOF {
            return out;
        }
        assert_eq!(rc, SLOG2_OK);
        out.append(&mut rows);
    }
}

#[test]
fn a_range_scan_returns_the_drawables_ending_in_it_once() {
    let mut fp = open_r(&data());
    let f = slog2::Slog2File::open(data()).unwrap();
    let all = f.scan_rows().unwrap();
    // Consecutive ranges cover the file once.
    // Cuts between drawable ends (ranges are closed at both ends).
    let cuts = [0.0, 0.0019, 0.0041, 0.0052, 0.01];
    let mut got = 0;
    for w in cuts.windows(2) {
        let t0 = w[0];
        let mut sc: SLOG2_Scan = std::ptr::null_mut();
        // SAFETY: valid handle and out-pointer.
        assert_eq!(
            unsafe { SLOG2_Scan_open_range(fp, t0, w[1], &mut sc) },
            SLOG2_OK
        );
        let rows = drain(sc);
        for &(_, end, parent) in &rows {
            if parent < 0 {
                assert!(
                    end >= t0 && end <= w[1],
                    "end {end} outside [{t0}, {}]",
                    w[1]
                );
            }
        }
        got += rows.len();
        // SAFETY: valid scan handle pointer.
        assert_eq!(unsafe { SLOG2_Scan_close(&mut sc) }, SLOG2_OK);
    }
    assert_eq!(got, all.len());
    for (a, b) in [(f64::NAN, 1.0), (1.0, 0.0)] {
        let mut sc: SLOG2_Scan = 1usize as SLOG2_Scan;
        // SAFETY: valid handle and out-pointer.
        assert_eq!(
            unsafe { SLOG2_Scan_open_range(fp, a, b, &mut sc) },
            SLOG2_ERR_BAD_ARG
        );
        assert!(sc.is_null());
    }
    // SAFETY: valid handle pointer.
    assert_eq!(unsafe { SLOG2_Close(&mut fp) }, SLOG2_OK);
}

/// SLOG2_Get_compressed: 1 for a file with compressed tree nodes (written
/// here by the converter with `compress`), 0 for a plain one; the header's
/// version is the layout version 206 for both.
#[test]
fn compressed_files_say_so() {
    use slog2::{convert, trace, WriterOptions};
    let dir = tempfile::tempdir().unwrap();
    let z = dir.path().join("z.slog2");
    let mut src = trace::open_source(&data()).unwrap();
    let opts = convert::ConvertOptions {
        writer: WriterOptions {
            compress: Some(6),
            ..Default::default()
        },
        ..Default::default()
    };
    convert::convert(&mut *src, &z, &opts, &mut |_| (), &mut |_| ()).unwrap();
    for (path, want) in [(data(), 0), (z, 1)] {
        let mut fp = open_r(&path);
        let (mut packed, mut version) = (-1, 0);
        let mut desc = [0 as c_char; 256];
        // SAFETY: valid handle, out-pointers and a 256-byte buffer.
        unsafe {
            assert_eq!(
                slog2_capi::compress::SLOG2_Get_compressed(fp, &mut packed),
                SLOG2_OK
            );
            assert_eq!(
                SLOG2_Get_header(fp, desc.as_mut_ptr(), 256, &mut version),
                SLOG2_OK
            );
            assert_eq!(
                slog2_capi::compress::SLOG2_Get_compressed(fp, std::ptr::null_mut()),
                SLOG2_ERR_NULL_ARG
            );
        }
        // SAFETY: SLOG2_Get_header wrote a NUL-terminated string.
        let text = unsafe { CStr::from_ptr(desc.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        assert_eq!((packed, version), (want, 206), "{text}");
        assert_eq!(text.contains("2.0.Z"), want == 1, "{text}");
        // SAFETY: the handle from open_r.
        assert_eq!(unsafe { SLOG2_Close(&mut fp) }, SLOG2_OK);
    }
}
