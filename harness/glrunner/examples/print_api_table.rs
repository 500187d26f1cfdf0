//! Prints the `api` step table of docs/DRIVERS.md.
fn main() {
    print!("{}", conform_glrunner::api_table_markdown());
}
