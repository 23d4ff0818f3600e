//! The fault record's decoding, the first-wins recorder, and the errors' words.

use super::{Faults, Site, SiteKind};
use crate::backend::c::record::{decode, RECORD_WORDS};
use crate::error::{Error, KernelFault};

static SITES: [Site; 2] = [
    Site::new(SiteKind::Write, "out", 2, "src/main.rs", 12, 9),
    Site::new(SiteKind::Remainder, "", 0, "src/main.rs", 14, 20),
];

#[test]
fn a_device_record_decodes_to_the_users_words() {
    let sites: Vec<&'static Site> = SITES.iter().collect();
    let mut w = [0u32; RECORD_WORDS];
    w[0] = 1; // site 0 + 1
    w[2] = 7; // index (7, 2^32 + 3)
    w[4] = 3;
    w[5] = 1;
    w[8] = 5; // dims (5, 4)
    w[10] = 4;
    let r = decode(&w, &sites).expect("a fault");
    let e = r.error("nuwork!", "device 0 (gpu)".into());
    let text = e.to_string();
    assert!(
        text.starts_with("nuwork! at src/main.rs:12:9 on device 0 (gpu): "),
        "{text}"
    );
    assert!(
        text.contains("index [7, 4294967299] is out of bounds for `out` of dims [5, 4]"),
        "{text}"
    );
    w[0] = 2;
    w[1] = super::DETAIL_OVERFLOW;
    let e = decode(&w, &sites).unwrap().error("k", "d".into());
    assert!(matches!(
        e,
        Error::Kernel {
            fault: KernelFault::Arithmetic("attempt to calculate the remainder with overflow"),
            ..
        }
    ));
    w[0] = 0;
    assert!(decode(&w, &sites).is_none());
    w[0] = 99;
    assert!(
        decode(&w, &sites).is_none(),
        "a site the program does not have"
    );
}

#[test]
fn the_first_fault_wins_across_threads() {
    let f = Faults::new();
    std::thread::scope(|s| {
        for t in 0..8u64 {
            let f = &f;
            s.spawn(move || f.bounds(&SITES[0], [t, 0, 0], [1, 1, 0]));
        }
    });
    let first = f.first().expect("one fault");
    assert!(first.index[0] < 8);
    assert!(f.check("k", || "d".into()).is_err());
    assert!(Faults::new().check("k", || "d".into()).is_ok());
}

#[test]
fn a_panic_is_caught_quietly_with_its_location() {
    let f = Faults::new();
    let line = line!() + 1;
    let panicked = f.catch(|| panic!("boom"));
    assert!(panicked);
    let e = f.check("k", || "d".into()).unwrap_err();
    let Error::Kernel {
        location,
        fault: KernelFault::Panic(msg),
        ..
    } = e
    else {
        panic!("not a panic");
    };
    assert_eq!(msg, "boom");
    assert_eq!(location, format!("{}:{line}:31", file!()));
}

#[test]
fn parent_directories_leave_paths_in_program_text() {
    use super::tidy_paths;
    assert_eq!(
        tidy_paths("/* nuwork! at benches/model_problems/../../examples/a/kernels.rs:57 */"),
        "/* nuwork! at examples/a/kernels.rs:57 */"
    );
    assert_eq!(tidy_paths("../x.rs a/./b x/y/../z"), "../x.rs a/./b x/z");
    assert_eq!(tidy_paths("a/b/../../../c"), "../c");
}
