//! Crate docs: fn fake() {}
#![allow(dead_code)]
use std::collections::{HashMap, HashSet};
use crate::io::Read as _;

/* outer /* nested fn nope() {} */ still comment struct Nope; */
const MAX: usize = 1 << 10;
static mut COUNTER: u32 = 0;
pub type Result<T> = std::result::Result<T, Error>;

#[derive(Debug, Clone)]
pub struct Point<T: Copy> {
    pub x: T,
    y: HashMap<String, Vec<(u8, u16)>>,
    #[serde(rename = "z")]
    z: Box<dyn Fn(u32) -> u32>,
}

pub struct Unit;
struct Pair(u32, &'static str);

pub enum Shape<'a> {
    Circle { r: f64 },
    Rect(f64, f64),
    Named(&'a str),
    Empty,
}

pub trait Area: Sized {
    type Output;
    const SIDES: u32;
    fn area(&self) -> f64;
    fn describe(&self) -> String { format!("{}", self.area()) }
}

impl<'a, T> fmt::Display for Point<T> where T: Copy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = r#"fn fake() { "quoted" }"#;
        let c = '{';
        let l: &'a str = "}";
        write!(f, "{}", s)
    }
}

impl Point<f64> {
    pub const fn new(x: f64) -> Self { Self { x, y: HashMap::new(), z: Box::new(|v| v) } }
    pub(crate) async unsafe fn raw(&self) {}
}

mod tests {
    use super::*;
    #[test]
    fn works() { assert!(true); }
}

macro_rules! square {
    ($x:expr) => { $x * $x };
}

extern "C" {
    fn abs(x: i32) -> i32;
}
lazy_static! { static ref RE: Regex = Regex::new("x").unwrap(); }
fn r#match(b: &[u8]) -> bool { b == b"}" || b[0] == b'{' }
