//! Checks a PNG the examples wrote: `pngcheck FILE WIDTH HEIGHT [MIN_COLOURS]`. Fails unless
//! it decodes, has exactly those dimensions (`any` for either side: no check) and at least `MIN_COLOURS` distinct colours (2 by
//! default: a blank picture has one). `scripts/examples` runs it on every picture.

#[path = "common/picture.rs"]
mod picture;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, w, h, rest @ ..] = args.as_slice() else {
        return Err("usage: pngcheck FILE WIDTH HEIGHT [MIN_COLOURS]".into());
    };
    let num = |s: &String| s.parse::<u32>().map_err(|e| format!("{s}: {e}"));
    // `any` accepts every size along that side (a chart's width follows its bars).
    let side = |s: &String| {
        if s == "any" {
            Ok(None)
        } else {
            num(s).map(Some)
        }
    };
    let (w, h) = (side(w)?, side(h)?);
    let min = rest.first().map_or(Ok(2), num)? as usize;
    let (gw, gh, colours) = picture::inspect(std::path::Path::new(file))?;
    if w.is_some_and(|w| w != gw) || h.is_some_and(|h| h != gh) {
        let want = |v: Option<u32>| v.map_or("any".to_string(), |v| v.to_string());
        return Err(format!(
            "{file}: {gw} x {gh} pixels, want {} x {}",
            want(w),
            want(h)
        ));
    }
    if colours < min {
        return Err(format!(
            "{file}: {colours} distinct colours, want at least {min} (blank?)"
        ));
    }
    println!("{file}: {gw} x {gh}, {colours} colours");
    Ok(())
}
