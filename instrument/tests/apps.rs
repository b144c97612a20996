//! Every shader under apps/ instruments into a module that validates.

#[test]
fn every_bundled_shader_instruments_and_validates() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../apps/wgsl");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "wgsl") {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        let options = wgstress_instrument::InstrumentOptions {
            file_name: Some(path.display().to_string()),
            ..Default::default()
        };
        let out = wgstress_instrument::instrument_wgsl(&source, &options)
            .unwrap_or_else(|e| panic!("{e}"));
        wgstress_instrument::validate(&out.module).unwrap();
        let reparsed = naga::front::wgsl::parse_str(&out.wgsl).unwrap();
        wgstress_instrument::validate(&reparsed)
            .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        assert!(
            !out.manifest.loops.is_empty(),
            "{}: its spin loops are guarded",
            path.display()
        );
        count += 1;
    }
    assert!(count >= 7, "found {count} shaders");
}
