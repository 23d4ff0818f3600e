//! The bench's bar chart of the speedup each annotation buys over its problem's base: as SVG
//! (`--svg`, linked from BENCHMARKS.md) and as PNG (`--png`, shown in README.md), with the
//! text in DejaVu Sans (the `dejavu` crate embeds it, so no system font is needed). Each
//! panel marks what its speedups are measured against, as labelled vertical lines: NUDA's
//! published speedup for the problem (its Table 3), and the speedup of each hand-written peer
//! timed on the same device in the same run.

use super::table::Row;
use plotters::coord::ranged1d::SegmentedCoord;
use plotters::coord::types::RangedCoordusize;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

type Res = Result<(), Box<dyn std::error::Error>>;

/// Pixels per bar, around each problem's panel, and for the title.
const BAR: u32 = 22;
const PANEL: u32 = 56;
const TITLE: u32 = 40;
const WIDTH: u32 = 1200;

/// The chart's size in pixels: one panel per problem, one row per variant and per mark.
fn size(rows: &[Row]) -> (u32, u32) {
    let h: u32 = problems(rows).iter().map(|p| panel_height(rows, p)).sum();
    (WIDTH, TITLE + h)
}

/// A problem's panel height: a row for each of its marks' labels, then one per bar.
fn panel_height(rows: &[Row], (problem, bars): &(&str, Vec<&Row>)) -> u32 {
    let marks = marks(rows, problem, &device(rows)).len();
    PANEL + BAR * (bars.len() + marks) as u32
}

/// The device of the chart's bars (the first bar's): the peers marked are this device's.
fn device(rows: &[Row]) -> String {
    bars(rows)
        .first()
        .map_or(String::new(), |r| r.device.clone())
}

/// NUDA's speedups (Adinetz, 2011, Table 3): the best annotated variant over the plain
/// `nuwork` one, per model problem. imgconv's figure stands for both of its panels.
const PAPER: &[(&str, f64)] = &[
    ("imgconv", 5.0),
    ("imgconv buffer", 5.0),
    ("nbody", 2.3),
    ("sgemm", 7.6),
    ("dgemm", 4.2),
    ("md5", 4.0),
];

/// A panel's coordinates: speedup on a log scale, and one segment per row.
type Rows = Cartesian2d<LogCoord<f64>, SegmentedCoord<RangedCoordusize>>;

/// A labelled vertical line in a panel: where the speedups stand against it.
struct Mark {
    label: String,
    at: f64,
    color: RGBColor,
}

/// The marks of `problem`'s panel: the paper's speedup, then each same-device peer's.
fn marks(rows: &[Row], problem: &str, device: &str) -> Vec<Mark> {
    let paper = PAPER.iter().filter(|p| p.0 == problem).map(|p| Mark {
        label: format!("NUDA paper {:.1}x", p.1),
        at: p.1,
        color: BLACK,
    });
    let peers = rows
        .iter()
        .filter(|r| r.kind == "peer" && r.problem == problem && r.device == device)
        .filter(|r| r.speedup.is_finite() && r.speedup > 0.0)
        .map(|r| Mark {
            label: format!("{} {:.2}x", r.variant, r.speedup),
            at: r.speedup,
            color: RGBColor(200, 120, 0),
        });
    paper.chain(peers).collect()
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
    let device = device(rows);
    // The scale spans the bars and every mark.
    let marked: Vec<f64> = problems(rows)
        .iter()
        .flat_map(|(p, _)| marks(rows, p, &device))
        .map(|m| m.at)
        .collect();
    let xs = all.iter().map(|r| r.speedup).chain(marked);
    let (lo, hi) = xs.fold((1.0f64, 1.0f64), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let (top, bottom) = (hi * 1.3, lo / 1.3);
    root.fill(&WHITE)?;
    let (title, mut rest) = root.split_vertically(TITLE);
    title.titled(
        &format!("speedup of each variant over its problem's base (log scale) — {device}"),
        ("sans-serif", 18),
    )?;
    let colors = [BLUE, RED, GREEN, MAGENTA, CYAN];
    for (k, p) in problems(rows).iter().enumerate() {
        let (problem, bars) = p;
        let (area, below) = rest.split_vertically(panel_height(rows, p));
        rest = below;
        let color = colors[k % colors.len()];
        let marks = marks(rows, problem, &device);
        panel(&area, (problem, bars, &marks), (bottom, top), color)?;
    }
    root.present()?;
    Ok(())
}

/// One problem's panel: a row per mark's label on top, then the bars, variant names on the
/// left; each mark's dashed line runs down through every row. Labels in rows of their own
/// cross no bar and no other label.
fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (problem, bars, marks): (&str, &[&Row], &[Mark]),
    (bottom, top): (f64, f64),
    color: RGBColor,
) -> Res
where
    DB::ErrorType: 'static,
{
    let (n, m) = (bars.len(), marks.len());
    let t = n + m;
    let mut chart = ChartBuilder::on(area)
        .caption(problem, ("sans-serif", 15))
        .margin_left(8)
        .margin_right(24)
        .y_label_area_size(500)
        .x_label_area_size(20)
        .build_cartesian_2d((bottom..top).log_scale(), (0..t).into_segmented())?;
    // Row `k` from the top is segment `t - 1 - k`: the marks' rows, then the base's. The mesh
    // also asks for the segment `t` past the top, which has no label.
    let at = |k: usize| t - 1 - k;
    let label = |i: &SegmentValue<usize>| match i {
        SegmentValue::CenterOf(s) | SegmentValue::Exact(s) if *s < t && at(*s) >= m => {
            let r = bars[at(*s) - m];
            format!("{} ({:.2}x)", r.variant, r.speedup)
        }
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .y_labels(t)
        .y_label_formatter(&label)
        .y_label_style(("sans-serif", 12))
        .x_label_style(("sans-serif", 11))
        .disable_y_mesh()
        .draw()?;
    chart.draw_series(bars.iter().enumerate().map(|(k, r)| {
        Rectangle::new(
            [
                (1.0, SegmentValue::Exact(at(m + k))),
                (r.speedup, SegmentValue::Exact(at(m + k) + 1)),
            ],
            color.mix(0.7).filled(),
        )
    }))?;
    for (k, mark) in marks.iter().enumerate() {
        draw_mark(
            &mut chart,
            mark,
            SegmentValue::CenterOf(at(k)),
            (t, bottom, top),
        )?;
    }
    Ok(())
}

/// A mark's dashed line over all `t` rows, its label in `row`: right of the line, or left of
/// it in the panel's right part, so it is not cut off.
fn draw_mark<DB: DrawingBackend>(
    chart: &mut ChartContext<DB, Rows>,
    mark: &Mark,
    row: SegmentValue<usize>,
    (t, bottom, top): (usize, f64, f64),
) -> Res
where
    DB::ErrorType: 'static,
{
    let style = mark.color.stroke_width(2);
    let line = [
        (mark.at, SegmentValue::Exact(0)),
        (mark.at, SegmentValue::Exact(t)),
    ];
    chart.draw_series(DashedLineSeries::new(line, 6, 4, style))?;
    let right = (mark.at / bottom).ln() / (top / bottom).ln() > 0.6;
    let (text, h) = match right {
        true => (format!("{} ", mark.label), HPos::Right),
        false => (format!(" {}", mark.label), HPos::Left),
    };
    let font = ("sans-serif", 11)
        .into_font()
        .color(&mark.color)
        .pos(Pos::new(h, VPos::Center));
    chart.draw_series(std::iter::once(Text::new(text, (mark.at, row), font)))?;
    Ok(())
}
