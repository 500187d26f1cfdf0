//! The worker process of a Vulkan driver: one device, one plan at a time.

use crate::device::Device;
use crate::module::ResourceKind;
use crate::{support, VkDriver, VkRequest, VkResponse};
use conform_plan::{ExecPlan, Outcome, Refusal};
use std::io::BufWriter;
use std::panic::{catch_unwind, AssertUnwindSafe};

fn run(
    device: &Result<Device, String>,
    robust: &mut Option<Result<Device, String>>,
    plan: &ExecPlan,
) -> Result<Outcome, Refusal> {
    let dev = device
        .as_ref()
        .map_err(|e| Refusal::Unsupported(format!("no Vulkan device: {e}")))?;
    // Checked again here: a plan sent with `--force` is refused with the parent's reason.
    let ready = support::check(plan, &dev.info).map_err(Refusal::Unsupported)?;
    // A buffer image's out-of-bounds accesses need robustBufferAccess2: per pipeline where
    // the device has pipeline robustness, else on a second device opened with it (once).
    let dev = if ready.has(ResourceKind::StorageTexelBuffer)
        && !dev.info.has_feature("pipelineRobustness")
    {
        conform_worker::breadcrumb::set(
            "opening the robust Vulkan device (robustBufferAccess2, for buffer images)",
        );
        robust
            .get_or_insert_with(|| Device::open(dev.info.driver, true))
            .as_ref()
            .map_err(|e| Refusal::Internal(format!("opening a robust device: {e}")))?
    } else {
        dev
    };
    match catch_unwind(AssertUnwindSafe(|| {
        crate::exec::run_plan(dev, plan, &ready)
    })) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(Refusal::Internal(format!("Vulkan runner panicked: {msg}")))
        }
    }
}

/// Entry point of `conform worker --vulkan NAME`: opens the device of `driver` and answers
/// [`VkRequest`]s from stdin (one JSON line each) until stdin closes. Returns the exit code.
pub fn vk_worker_main(driver: VkDriver) -> i32 {
    conform_worker::watch_parent();
    conform_worker::ignore_interrupts();
    conform_worker::breadcrumb::install();
    let mut out = BufWriter::new(conform_worker::protocol_output());
    conform_worker::breadcrumb::set("opening the Vulkan device (vkCreateInstance, vkCreateDevice)");
    let device = Device::open(driver, false);
    let mut robust = None;
    match &device {
        Ok(d) => eprintln!(
            "conform worker ({driver}): {} | {}",
            d.info.device_name,
            d.info.version_line()
        ),
        Err(e) => eprintln!("conform worker ({driver}): no device: {e}"),
    }
    let code = conform_worker::serve(
        &driver.to_string(),
        &mut out,
        |request| match request {
            VkRequest::Probe => VkResponse::Probe(match &device {
                Ok(d) => Ok(d.info.clone()),
                Err(e) => Err(e.clone()),
            }),
            VkRequest::Run(plan) => VkResponse::Run(run(&device, &mut robust, &plan)),
        },
        |m| VkResponse::Run(Err(Refusal::Internal(m))),
    );
    drop(robust);
    drop(device);
    code
}
