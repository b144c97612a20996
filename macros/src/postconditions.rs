//! `#[postconditions]` on an impl block.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::{spanned::Spanned, Error, FnArg, ImplItem, ItemImpl, Pat, Result, ReturnType};

struct Postcondition {
    method: syn::Ident,
    buffers: Vec<syn::Ident>,
}

fn compact(tokens: impl ToTokens) -> String {
    tokens.to_token_stream().to_string().replace(' ', "")
}

fn signature(sig: &syn::Signature) -> Result<Postcondition> {
    let wrong = |span: proc_macro2::Span, what: &str| {
        Error::new(span, format!("a #[postcondition] is `fn name(&self, buffer: &[u32], ...) -> Result<(), String>`: {what}"))
    };
    let mut inputs = sig.inputs.iter();
    match inputs.next() {
        Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none() => {}
        _ => return Err(wrong(sig.span(), "it takes `&self` first")),
    }
    let mut buffers = Vec::new();
    for input in inputs {
        let FnArg::Typed(arg) = input else {
            unreachable!("only the first argument is a receiver")
        };
        let Pat::Ident(name) = &*arg.pat else {
            return Err(wrong(
                arg.pat.span(),
                "name each buffer argument after a buffer field",
            ));
        };
        if compact(&arg.ty) != "&[u32]" {
            return Err(wrong(arg.ty.span(), "buffer arguments are `&[u32]`"));
        }
        buffers.push(name.ident.clone());
    }
    match &sig.output {
        ReturnType::Type(_, ty) if compact(ty) == "Result<(),String>" => {}
        other => return Err(wrong(other.span(), "it returns `Result<(), String>`")),
    }
    Ok(Postcondition {
        method: sig.ident.clone(),
        buffers,
    })
}

pub fn expand(mut item: ItemImpl) -> Result<TokenStream> {
    if item.trait_.is_some() {
        return Err(Error::new(
            item.span(),
            "#[postconditions] goes on an inherent impl block",
        ));
    }
    let mut found = Vec::new();
    for member in &mut item.items {
        let ImplItem::Fn(method) = member else {
            continue;
        };
        let before = method.attrs.len();
        method.attrs.retain(|a| !a.path().is_ident("postcondition"));
        if method.attrs.len() != before {
            found.push(signature(&method.sig)?);
        }
    }
    let ty = &item.self_ty;
    let (impl_generics, _, where_clause) = item.generics.split_for_impl();
    let mut reads = Vec::new();
    let calls = found
        .iter()
        .map(|p| {
            let method = &p.method;
            let label = method.to_string();
            let fetch = p
                .buffers
                .iter()
                .map(|b| {
                    let constant = format_ident!("__WGSTRESS_BUFFER_{}", b, span = b.span());
                    reads.push(quote!(<#ty>::#constant));
                    let name = b.to_string();
                    quote! {
                        let #b = {
                            let (group, binding) = <#ty>::#constant;
                            outputs.get(group, binding).ok_or_else(|| {
                                ::wgstress_runtime::app::failure::CheckFailure::NotReadBack {
                                    binding: (group, binding),
                                    buffer: ::std::option::Option::Some(#name.to_string()),
                                }
                            })?
                        };
                    }
                })
                .collect::<Vec<_>>();
            let args = &p.buffers;
            quote! {
                {
                    #(#fetch)*
                    self.#method(#(#args),*).map_err(|message| {
                        ::wgstress_runtime::app::failure::CheckFailure::Postcondition {
                            name: #label.to_string(),
                            message,
                        }
                    })?;
                }
            }
        })
        .collect::<Vec<_>>();
    Ok(quote! {
        #item

        impl #impl_generics ::wgstress_runtime::app::spec::Postconditions for #ty #where_clause {
            fn reads(&self) -> ::std::vec::Vec<(u32, u32)> {
                vec![#(#reads),*]
            }

            fn check(&self, outputs: &::wgstress_runtime::app::spec::Outputs) -> ::std::result::Result<(), ::wgstress_runtime::app::failure::CheckFailure> {
                #(#calls)*
                ::std::result::Result::Ok(())
            }
        }
    })
}
