//! Experiment: what 300 accessor properties cost to define in QuickJS, by
//! `Object.defineProperty` (as js/prelude.js does) and by an object literal.
use rquickjs::{Context, Ctx, Function, Runtime, Value, qjs};

fn cpu_us() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 * 1e6 + t.tv_nsec as f64 / 1e3
}

fn compile(ctx: &Ctx<'_>, src: &str) -> Vec<u8> {
    let text = std::ffi::CString::new(src).unwrap();
    let raw = ctx.as_raw().as_ptr();
    let flags = qjs::JS_EVAL_TYPE_GLOBAL | qjs::JS_EVAL_FLAG_STRICT | qjs::JS_EVAL_FLAG_COMPILE_ONLY;
    unsafe {
        let f = qjs::JS_Eval(raw, text.as_ptr(), src.len() as _, c"x.js".as_ptr(), flags as i32);
        assert!(!qjs::JS_IsException(f));
        let mut len = std::mem::MaybeUninit::uninit();
        let buf = qjs::JS_WriteObject(raw, len.as_mut_ptr(), f, qjs::JS_WRITE_OBJ_BYTECODE as i32);
        qjs::JS_FreeValue(raw, f);
        let out = std::slice::from_raw_parts(buf, len.assume_init() as usize).to_vec();
        qjs::js_free(raw, buf.cast());
        out
    }
}

fn read<'js>(ctx: &Ctx<'js>, bytecode: &[u8]) -> Function<'js> {
    let raw = ctx.as_raw().as_ptr();
    unsafe {
        let f = qjs::JS_ReadObject(raw, bytecode.as_ptr(), bytecode.len() as _, qjs::JS_READ_OBJ_BYTECODE as i32);
        assert!(!qjs::JS_IsException(f));
        let v = qjs::JS_EvalFunction(raw, f);
        assert!(!qjs::JS_IsException(v));
        Value::from_raw(ctx.clone(), v).into_function().unwrap()
    }
}

fn main() {
    let names: Vec<String> = (0..300).map(|i| format!("p{i}")).collect();
    let props: String = names.iter().map(|n| format!("{n}() {{ return N.attr(this, '{n}'); }},")).collect();
    let via_define = format!(
        r#"(function (N) {{
  const readOnly = (what) => () => {{ throw new Error(what); }};
  const getters = (target, props) => {{
    for (const [name, get] of Object.entries(props)) {{
      Object.defineProperty(target, name, {{ get, set: readOnly("setting `" + name + "`"), configurable: true, enumerable: true }});
    }}
  }};
  const proto = {{}};
  getters(proto, {{ {props} }});
  return proto;
}})"#
    );
    let literal_props: String = names
        .iter()
        .map(|n| format!("get {n}() {{ return N.attr(this, '{n}'); }}, set {n}(v) {{ ro('{n}'); }},"))
        .collect();
    let via_literal = format!(
        r#"(function (N) {{
  const ro = (name) => {{ throw new Error("setting `" + name + "`"); }};
  return {{ {literal_props} }};
}})"#
    );
    let shared_setter: String =
        names.iter().map(|n| format!("{n}() {{ return N.attr(this, '{n}'); }},")).collect();
    let via_shared = format!(
        r#"(function (N) {{
  const set = function () {{ throw new Error("read-only"); }};
  const proto = {{}};
  const props = {{ {shared_setter} }};
  for (const name in props) Object.defineProperty(proto, name, {{ get: props[name], set, configurable: true, enumerable: true }});
  return proto;
}})"#
    );
    let via_closure = format!(
        r#"(function (N) {{
  const setter = (name) => function () {{ throw new Error("setting `" + name + "`"); }};
  const proto = {{}};
  const props = {{ {shared_setter} }};
  for (const name in props) Object.defineProperty(proto, name, {{ get: props[name], set: setter(name), configurable: true, enumerable: true }});
  return proto;
}})"#
    );
    let rt0 = Runtime::new().unwrap();
    let c0 = Context::full(&rt0).unwrap();
    for (name, src) in [("define", &via_define), ("literal", &via_literal), ("shared", &via_shared), ("closure", &via_closure)] {
        let code = c0.with(|ctx| compile(&ctx, src));
        let t = cpu_us();
        for _ in 0..500 {
            let rt = Runtime::new().unwrap();
            rt.set_gc_threshold(8 << 20);
            let c = Context::full(&rt).unwrap();
            c.with(|ctx| {
                let n = rquickjs::Object::new(ctx.clone()).unwrap();
                let _: rquickjs::Object = read(&ctx, &code).call((n,)).unwrap();
            });
        }
        println!("fresh runtime, read + run: {name:10} {:7.1} µs ({} bytes of bytecode)", (cpu_us() - t) / 500.0, code.len());
    }
    let rt = Runtime::new().unwrap();
    let ctx = Context::full(&rt).unwrap();
    ctx.with(|ctx| {
        let n = rquickjs::Object::new(ctx.clone()).unwrap();
        for (name, src) in [("defineProperty + setter closure", &via_define), ("literal get/set", &via_literal), ("defineProperty, shared setter", &via_shared)] {
            let f: Function = ctx.eval(src.as_str()).unwrap();
            for _ in 0..50 {
                let _: rquickjs::Object = f.call((n.clone(),)).unwrap();
            }
            let t = cpu_us();
            for _ in 0..1000 {
                let _: rquickjs::Object = f.call((n.clone(),)).unwrap();
            }
            println!("{name:40} {:7.1} µs per 300 properties", (cpu_us() - t) / 1000.0);
        }
    });
}
