fn main() {
    let path = std::env::args().nth(1).expect("path");
    let source = std::fs::read_to_string(&path).unwrap();
    let options = wgstress_instrument::InstrumentOptions {
        file_name: Some(path),
        ..Default::default()
    };
    match wgstress_instrument::instrument_wgsl(&source, &options) {
        Ok(r) => {
            println!("{}", r.wgsl);
            println!("{}", serde_json::to_string_pretty(&r.manifest).unwrap());
        }
        Err(e) => eprintln!("{e}"),
    }
}
