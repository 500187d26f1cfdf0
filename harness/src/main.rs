fn main() {
    println!("conform: skeleton");
}
