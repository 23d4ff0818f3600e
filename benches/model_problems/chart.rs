//! The bench's bar chart of the speedup each annotation buys over its problem's base: as SVG
//! (`--svg`, linked from BENCHMARKS.md) and as PNG (`--png`, shown in README.md), with the
//! text in DejaVu Sans (the `dejavu` crate embeds it, so no system font is needed).

use super::table::Row;
use plotters::coord::Shift;
use plotters::prelude::*;

type Res = Result<(), Box<dyn std::error::Error>>;

/// Pixels per bar, around each problem's panel, and for the title.
const BAR: u32 = 22;
const PANEL: u32 = 56;
const TITLE: u32 = 40;
const WIDTH: u32 = 1200;

/// The chart's size in pixels: one panel per problem, one row per variant.
fn size(rows: &[Row]) -> (u32, u32) {
    let panels = problems(rows);
    let h: u32 = panels.iter().map(|p| PANEL + BAR * p.1.len() as u32).sum();
    (WIDTH, TITLE + h)
}

/// The bars: every nuda variant.
fn bars(rows: &[Row]) -> Vec<&Row> {
    rows.iter().filter(|r| r.kind == "nuda").collect()
}

/// The bars, grouped by problem in the bench's order (problems with variants only).
fn problems(rows: &[Row]) -> Vec<(&str, Vec<&Row>)> {
    let mut out: Vec<(&str, Vec<&Row>)> = Vec::new();
    for r in bars(rows) {
        match out.iter_mut().find(|p| p.0 == r.problem) {
            Some(p) => p.1.push(r),
            None => out.push((&r.problem, vec![r])),
        }
    }
    // A problem with one variant (its base) has no speedup to show.
    out.retain(|p| p.1.len() > 1);
    out
}

/// Writes the chart as SVG.
pub fn write_svg(rows: &[Row], path: &str) -> Res {
    register_font()?;
    let root = SVGBackend::new(path, size(rows)).into_drawing_area();
    draw(&root, rows)
}

/// Writes the chart as PNG: drawn into a pixel buffer, encoded by the `png` crate.
pub fn write_png(rows: &[Row], path: &str) -> Res {
    register_font()?;
    let (w, h) = size(rows);
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        draw(&root, rows)?;
    }
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut enc = png::Encoder::new(file, w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()?.write_image_data(&rgb)?;
    Ok(())
}

/// Registers DejaVu Sans as `sans-serif`: plotters lays text out with it in both backends,
/// and the bitmap one draws it.
fn register_font() -> Res {
    plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| "DejaVu Sans could not be read as TrueType")?;
    Ok(())
}

/// Draws the chart on `root`: a title, then per problem a panel of horizontal bars, one per
/// variant, on a log scale shared by all panels (speedups span 0.8x to 100x and more; a
/// slowdown shows left of the 1x line).
fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, rows: &[Row]) -> Res
where
    DB::ErrorType: 'static,
{
    let all = bars(rows);
    let top = all.iter().map(|r| r.speedup).fold(1.0f64, f64::max) * 1.3;
    let bottom = all.iter().map(|r| r.speedup).fold(1.0f64, f64::min) / 1.3;
    root.fill(&WHITE)?;
    let device = all.first().map_or(String::new(), |r| r.device.clone());
    let (title, mut rest) = root.split_vertically(TITLE);
    title.titled(
        &format!("speedup of each variant over its problem's base (log scale) — {device}"),
        ("sans-serif", 18),
    )?;
    let colors = [BLUE, RED, GREEN, MAGENTA, CYAN];
    for (k, (problem, bars)) in problems(rows).iter().enumerate() {
        let (area, below) = rest.split_vertically(PANEL + BAR * bars.len() as u32);
        rest = below;
        let color = colors[k % colors.len()];
        panel(&area, problem, bars, (bottom, top), color)?;
    }
    root.present()?;
    Ok(())
}

/// One problem's bars, variant names on the left.
fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    problem: &str,
    bars: &[&Row],
    (bottom, top): (f64, f64),
    color: RGBColor,
) -> Res
where
    DB::ErrorType: 'static,
{
    let n = bars.len();
    let mut chart = ChartBuilder::on(area)
        .caption(problem, ("sans-serif", 15))
        .margin_left(8)
        .margin_right(24)
        .y_label_area_size(500)
        .x_label_area_size(20)
        .build_cartesian_2d((bottom..top).log_scale(), (0..n).into_segmented())?;
    // The base on top: row `k` from the top is segment `n - 1 - k`.
    let at = |k: usize| n - 1 - k;
    let label = |i: &SegmentValue<usize>| match i {
        SegmentValue::CenterOf(k) | SegmentValue::Exact(k) if *k < n => {
            let r = bars[at(*k)];
            format!("{} ({:.2}x)", r.variant, r.speedup)
        }
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .y_labels(n)
        .y_label_formatter(&label)
        .y_label_style(("sans-serif", 12))
        .x_label_style(("sans-serif", 11))
        .disable_y_mesh()
        .draw()?;
    chart.draw_series(bars.iter().enumerate().map(|(k, r)| {
        Rectangle::new(
            [
                (1.0, SegmentValue::Exact(at(k))),
                (r.speedup, SegmentValue::Exact(at(k) + 1)),
            ],
            color.mix(0.7).filled(),
        )
    }))?;
    Ok(())
}
