//! `#[derive(Application)]`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{spanned::Spanned, Data, DeriveInput, Error, Fields, LitStr, Result};

#[derive(Default)]
struct AppAttrs {
    name: Option<LitStr>,
    shader: Option<LitStr>,
    entry: Option<LitStr>,
    postcondition: Option<LitStr>,
    postcondition_shader: Option<LitStr>,
}

fn app_attrs(input: &DeriveInput) -> Result<AppAttrs> {
    let mut attrs = AppAttrs::default();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("wgstress")) {
        attr.parse_nested_meta(|meta| {
            let slot = if meta.path.is_ident("name") {
                &mut attrs.name
            } else if meta.path.is_ident("shader") {
                &mut attrs.shader
            } else if meta.path.is_ident("entry") {
                &mut attrs.entry
            } else if meta.path.is_ident("postcondition") {
                &mut attrs.postcondition
            } else if meta.path.is_ident("postcondition_shader") {
                &mut attrs.postcondition_shader
            } else {
                return Err(meta.error(
                    "expected `name`, `shader`, `entry`, `postcondition` or `postcondition_shader`",
                ));
            };
            *slot = Some(meta.value()?.parse()?);
            Ok(())
        })?;
    }
    Ok(attrs)
}

enum Role {
    Buffer {
        kind: TokenStream,
        group: u32,
        binding: u32,
    },
    Dispatch,
    Pipeline,
    PostDispatch,
    Constant(LitStr),
}

fn role(field: &syn::Field) -> Result<Option<(Role, proc_macro2::Span)>> {
    let mut found = None;
    for attr in &field.attrs {
        let path = attr.path();
        let role =
            if path.is_ident("storage") || path.is_ident("uniform") {
                let kind = if path.is_ident("storage") {
                    quote!(Storage)
                } else {
                    quote!(Uniform)
                };
                let (mut group, mut binding) = (0u32, None);
                attr.parse_nested_meta(|meta| {
                    let value: syn::LitInt = meta.value()?.parse()?;
                    if meta.path.is_ident("binding") {
                        binding = Some(value.base10_parse()?);
                    } else if meta.path.is_ident("group") {
                        group = value.base10_parse()?;
                    } else {
                        return Err(meta.error("expected `binding` or `group`"));
                    }
                    Ok(())
                })?;
                let binding = binding
                    .ok_or_else(|| Error::new(attr.span(), "a buffer needs `binding = N`"))?;
                Role::Buffer {
                    kind,
                    group,
                    binding,
                }
            } else if path.is_ident("dispatch") {
                Role::Dispatch
            } else if path.is_ident("pipeline") {
                Role::Pipeline
            } else if path.is_ident("post_dispatch") {
                Role::PostDispatch
            } else if path.is_ident("constant") {
                let mut name = None;
                attr.parse_nested_meta(|meta| {
                    if !meta.path.is_ident("name") {
                        return Err(meta.error("expected `name = \"OVERRIDE\"`"));
                    }
                    name = Some(meta.value()?.parse()?);
                    Ok(())
                })?;
                Role::Constant(name.ok_or_else(|| {
                    Error::new(attr.span(), "a constant needs `name = \"OVERRIDE\"`")
                })?)
            } else {
                continue;
            };
        if found.is_some() {
            return Err(Error::new(attr.span(), "a field has one wgstress role"));
        }
        found = Some((role, attr.span()));
    }
    Ok(found)
}

fn is_type(ty: &syn::Type, expected: &str) -> bool {
    quote!(#ty).to_string().replace(' ', "") == expected
}

pub fn expand(input: DeriveInput) -> Result<TokenStream> {
    let attrs = app_attrs(&input)?;
    let ident = &input.ident;
    let name = attrs
        .name
        .ok_or_else(|| Error::new(ident.span(), "#[wgstress(name = \"...\")] is missing"))?;
    let shader = attrs.shader.ok_or_else(|| {
        Error::new(
            ident.span(),
            "#[wgstress(shader = \"path/from/crate/root.wgsl\")] is missing",
        )
    })?;
    let Data::Struct(data) = &input.data else {
        return Err(Error::new(ident.span(), "an application is a struct"));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(Error::new(
            ident.span(),
            "an application is a struct with named fields",
        ));
    };
    let mut buffers = Vec::new();
    let mut consts = Vec::new();
    let mut seen: Vec<(u32, u32, syn::Ident)> = Vec::new();
    let (mut dispatch, mut post_dispatch, mut constants) = (None, None, Vec::new());
    let mut pipeline = None;
    for field in &fields.named {
        let Some((role, span)) = role(field)? else {
            continue;
        };
        let f = field.ident.clone().expect("named field");
        match role {
            Role::Buffer {
                kind,
                group,
                binding,
            } => {
                if !is_type(&field.ty, "Vec<u32>") {
                    return Err(Error::new(
                        field.ty.span(),
                        "a buffer field must be `Vec<u32>`: its initial contents, as words",
                    ));
                }
                if let Some((_, _, other)) =
                    seen.iter().find(|(g, b, _)| (*g, *b) == (group, binding))
                {
                    return Err(Error::new(
                        span,
                        format!("binding {group}:{binding} is already used by field `{other}`"),
                    ));
                }
                seen.push((group, binding, f.clone()));
                let label = f.to_string();
                buffers.push(quote! {
                    ::wgstress_runtime::app::spec::Binding {
                        group: #group,
                        binding: #binding,
                        kind: ::wgstress_runtime::app::spec::BindingKind::#kind,
                        words: self.#f.len() as u32,
                        init: ::wgstress_runtime::app::init::Init::Words { words: self.#f.clone() },
                        name: ::std::option::Option::Some(#label.to_string()),
                    }
                });
                let constant = format_ident!("__WGSTRESS_BUFFER_{}", f);
                consts.push(quote! { pub const #constant: (u32, u32) = (#group, #binding); });
            }
            Role::Dispatch | Role::PostDispatch => {
                if !is_type(&field.ty, "[u32;3]") {
                    return Err(Error::new(field.ty.span(), "a dispatch size is `[u32; 3]`"));
                }
                let slot = if matches!(role, Role::Dispatch) {
                    &mut dispatch
                } else {
                    &mut post_dispatch
                };
                if slot.is_some() {
                    return Err(Error::new(span, "the dispatch size is given twice"));
                }
                *slot = Some(f);
            }
            Role::Pipeline => {
                let ty = &field.ty;
                if !quote!(#ty)
                    .to_string()
                    .replace(' ', "")
                    .ends_with("Dispatch>")
                {
                    return Err(Error::new(
                        field.ty.span(),
                        "a pipeline is `Vec<wgstress_runtime::app::spec::Dispatch>`",
                    ));
                }
                if pipeline.is_some() {
                    return Err(Error::new(span, "the pipeline is given twice"));
                }
                pipeline = Some(f);
            }
            Role::Constant(override_name) => {
                let number = ["bool", "u32", "i32", "f32", "f64"]
                    .iter()
                    .any(|t| is_type(&field.ty, t));
                if !number {
                    return Err(Error::new(
                        field.ty.span(),
                        "a constant is bool, u32, i32, f32 or f64",
                    ));
                }
                let value = if is_type(&field.ty, "bool") {
                    quote!(if self.#f { 1.0 } else { 0.0 })
                } else {
                    quote!(self.#f as f64)
                };
                constants.push(quote! { (#override_name.to_string(), #value) });
            }
        }
    }
    let (workgroups, pipeline) = match (dispatch, pipeline) {
        (Some(d), None) => (quote!(self.#d), quote!(::std::vec::Vec::new())),
        (None, Some(p)) => (quote!([1, 1, 1]), quote!(::std::clone::Clone::clone(&self.#p))),
        (Some(_), Some(_)) => {
            return Err(Error::new(
                ident.span(),
                "mark either #[dispatch] (one kernel) or #[pipeline] (its dispatches), not both",
            ))
        }
        (None, None) => {
            return Err(Error::new(
                ident.span(),
                "no field is marked #[dispatch] (the workgroup count, [u32; 3]) or #[pipeline] (Vec<Dispatch>)",
            ))
        }
    };
    let postcondition_shader = match &attrs.postcondition_shader {
        Some(path) => {
            let path = shader_path(path)?;
            quote! {
                ::std::option::Option::Some(::wgstress_runtime::app::spec::ShaderFile {
                    path: #path.to_string(),
                    source: include_str!(#path).to_string(),
                })
            }
        }
        None => quote!(::std::option::Option::None),
    };
    let shader = shader_path(&shader)?;
    let post_dispatch = post_dispatch.map_or(quote!([1, 1, 1]), |f| quote!(self.#f));
    let option = |lit: &Option<LitStr>| match lit {
        Some(l) => quote!(::std::option::Option::Some(#l.to_string())),
        None => quote!(::std::option::Option::None),
    };
    let (entry, postcondition) = (option(&attrs.entry), option(&attrs.postcondition));
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    Ok(quote! {
        #[allow(non_upper_case_globals)]
        impl #impl_generics #ident #ty_generics #where_clause {
            #(#[doc(hidden)] #consts)*
        }

        impl #impl_generics ::wgstress_runtime::app::spec::Application for #ident #ty_generics #where_clause {
            fn app(&self) -> ::wgstress_runtime::app::spec::App {
                let this = ::std::sync::Arc::new(::std::clone::Clone::clone(self));
                let reads = ::wgstress_runtime::app::spec::Postconditions::reads(self);
                ::wgstress_runtime::app::spec::App {
                    name: #name.to_string(),
                    shader_path: #shader.to_string(),
                    source: include_str!(#shader).to_string(),
                    entry: #entry,
                    postcondition: #postcondition,
                    workgroups: #workgroups,
                    postcondition_workgroups: #post_dispatch,
                    bindings: vec![#(#buffers),*],
                    checks: ::std::vec::Vec::new(),
                    host_check: ::std::option::Option::Some(::std::sync::Arc::new(move |outputs| {
                        ::wgstress_runtime::app::spec::Postconditions::check(&*this, outputs)
                    })),
                    host_reads: reads,
                    constants: vec![#(#constants),*],
                    pipeline: #pipeline,
                    postcondition_shader: #postcondition_shader,
                }
            }
        }
    })
}

/// The full path of a shader file, as an expression `include_str!` takes: `$NAME/rest` from
/// the build-time environment variable NAME (`$OUT_DIR/` for a shader a build script
/// writes), an absolute path as it is, any other from the crate's root.
fn shader_path(path: &LitStr) -> Result<TokenStream> {
    let text = path.value();
    if let Some(rest) = text.strip_prefix('$') {
        let Some((name, rest)) = rest.split_once('/') else {
            return Err(Error::new(
                path.span(),
                "a path from an environment variable is `$NAME/file.wgsl`",
            ));
        };
        let rest = format!("/{rest}");
        return Ok(quote!(concat!(env!(#name), #rest)));
    }
    if std::path::Path::new(&text).is_absolute() {
        return Ok(quote!(#path));
    }
    Ok(quote!(concat!(env!("CARGO_MANIFEST_DIR"), "/", #path)))
}
