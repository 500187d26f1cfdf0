//! One plan on the worker's device: buffers in host-visible memory, one compute pipeline,
//! the steps recorded in order into command buffers (a new one after each snapshot), and the
//! buffers read after the last step. Every object is destroyed when the plan's [`Objects`]
//! drop.
//!
//! How GL's steps become Vulkan commands (docs/DRIVERS.md, "Vulkan drivers"):
//! - `dispatch` → vkCmdDispatch; `dispatch_indirect` → vkCmdDispatchIndirect.
//! - `barrier` (glMemoryBarrier) → one vkCmdPipelineBarrier with a global memory barrier
//!   from compute-shader writes to what each bit makes visible (storage, atomic counter and
//!   image bits: compute-shader reads and writes; uniform: uniform reads; command: indirect
//!   reads; buffer update: transfer and host accesses). Nothing else orders one dispatch
//!   after another, as in GL.
//! - `write` (glBufferSubData) → vkCmdUpdateBuffer, `clear` (glClearBufferData) →
//!   vkCmdFillBuffer, each between two barriers that give it GL's ordering of API commands:
//!   after every earlier use of the buffer (execution only: GL orders API commands, not
//!   shader writes) and before every later shader or indirect read (transfer writes made
//!   visible, as GL's API writes are).
//! - reading the buffers (a snapshot, and after the last step) → what the GL runner's
//!   glMemoryBarrier(BUFFER_UPDATE) + glFinish is: a barrier from all writes to host reads,
//!   the submission, and a wait on its fence.

use crate::device::Device;
use crate::formats;
use crate::module::ResourceKind;
use crate::support::Ready;
use ash::vk;
use conform_plan::{
    BarrierBit, BufferKind, BuildOutcome, BuildStage, ExecPlan, ImageDesc, ImageDim, Outcome,
    Refusal, Step, StepOutcome, Timings,
};
use conform_worker::breadcrumb;
use std::time::Instant;

/// One buffer: the Vulkan buffer, its host-visible memory, mapped.
struct Buffer {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u8,
    len: usize,
}

/// One storage image (not a buffer image): the image in device memory, in the GENERAL layout
/// once uploaded, and its view. Its plan buffer's [`Buffer`] is its staging buffer: the
/// texels in the plan's layout, copied in before the first step and back at each reading.
struct Image {
    image: vk::Image,
    memory: vk::DeviceMemory,
    view: vk::ImageView,
    desc: ImageDesc,
}

/// Everything one plan created, destroyed on drop.
struct Objects<'d> {
    dev: &'d Device,
    buffers: Vec<Buffer>,
    /// Per plan buffer: its storage image, if it is one.
    images: Vec<Option<Image>>,
    /// Per plan buffer: the view of a buffer image (a storage texel buffer), else null.
    texel_views: Vec<vk::BufferView>,
    module: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    pool: vk::DescriptorPool,
    commands: vk::CommandPool,
    fence: vk::Fence,
}

impl Drop for Objects<'_> {
    fn drop(&mut self) {
        let d = &self.dev.device;
        // SAFETY: every handle was created on this device by this plan (or is null, which
        // the destroy functions ignore); the device is idle after the wait, so none is in use.
        unsafe {
            let _ = d.device_wait_idle();
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.commands, None);
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            d.destroy_shader_module(self.module, None);
            for i in self.images.iter().flatten() {
                d.destroy_image_view(i.view, None);
                d.destroy_image(i.image, None);
                d.free_memory(i.memory, None);
            }
            for v in &self.texel_views {
                d.destroy_buffer_view(*v, None);
            }
            for b in &self.buffers {
                d.destroy_buffer(b.buffer, None);
                d.unmap_memory(b.memory);
                d.free_memory(b.memory, None);
            }
        }
    }
}

fn micros(since: Instant) -> u64 {
    since.elapsed().as_micros().min(u64::MAX as u128) as u64
}

fn internal(what: &str, e: vk::Result) -> Refusal {
    Refusal::Internal(format!("{what} failed: {e}"))
}

/// A lost device cannot run another plan: the worker ends, so the plan is a crash (with
/// this line in its stderr) and the next plan gets a fresh worker and device.
fn fatal(what: &str, e: vk::Result) -> ! {
    eprintln!("conform worker (vulkan): {what} failed: {e}; the device is unusable, exiting");
    std::process::exit(75)
}

const WHOLE: u64 = vk::WHOLE_SIZE;

impl Objects<'_> {
    fn create_buffers(&mut self, plan: &ExecPlan) -> Result<(), Refusal> {
        let d = &self.dev.device;
        for b in &plan.buffers {
            let size = b.bytes.len().max(4) as u64;
            let mut usage = vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::UNIFORM_BUFFER
                | vk::BufferUsageFlags::INDIRECT_BUFFER
                | vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST;
            if matches!(b.kind, BufferKind::Image(desc) if desc.dim == ImageDim::Buffer) {
                usage |= vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER;
            }
            let info = vk::BufferCreateInfo::default()
                .size(size)
                .usage(usage)
                .sharing_mode(vk::SharingMode::EXCLUSIVE);
            // SAFETY: a valid create info on a live device.
            let buffer = unsafe { d.create_buffer(&info, None) }
                .map_err(|e| internal("vkCreateBuffer", e))?;
            // SAFETY: a buffer of this device.
            let req = unsafe { d.get_buffer_memory_requirements(buffer) };
            let want =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let mem = &self.dev.memory;
            let Some(index) = (0..mem.memory_type_count).find(|&i| {
                req.memory_type_bits & (1 << i) != 0
                    && mem.memory_types[i as usize].property_flags.contains(want)
            }) else {
                // SAFETY: the buffer is unused.
                unsafe { d.destroy_buffer(buffer, None) };
                return Err(Refusal::Unsupported(
                    "host-visible, host-coherent memory for storage buffers".into(),
                ));
            };
            let alloc = vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(index);
            // SAFETY: a memory type the buffer accepts.
            let memory = match unsafe { d.allocate_memory(&alloc, None) } {
                Ok(m) => m,
                Err(e) => {
                    // SAFETY: the buffer is unused.
                    unsafe { d.destroy_buffer(buffer, None) };
                    return Err(internal("vkAllocateMemory", e));
                }
            };
            // SAFETY: fresh memory of a host-visible type, bound once and mapped whole; the
            // initial bytes fit (the buffer is at least as large).
            let ptr = unsafe {
                let bound = d.bind_buffer_memory(buffer, memory, 0);
                let ptr = d.map_memory(memory, 0, WHOLE, vk::MemoryMapFlags::empty());
                match (bound, ptr) {
                    (Ok(()), Ok(p)) => {
                        let p = p.cast::<u8>();
                        std::ptr::write_bytes(p, 0, size as usize);
                        std::ptr::copy_nonoverlapping(b.bytes.as_ptr(), p, b.bytes.len());
                        p
                    }
                    (Err(e), _) | (_, Err(e)) => {
                        d.destroy_buffer(buffer, None);
                        d.free_memory(memory, None);
                        return Err(internal("binding or mapping buffer memory", e));
                    }
                }
            };
            self.buffers.push(Buffer {
                buffer,
                memory,
                ptr,
                len: b.bytes.len(),
            });
        }
        Ok(())
    }

    /// The images of the plan's storage images and the views of its buffer images (after
    /// [`Objects::create_buffers`]).
    fn create_images(&mut self, plan: &ExecPlan) -> Result<(), Refusal> {
        let d = &self.dev.device;
        for (i, b) in plan.buffers.iter().enumerate() {
            self.images.push(None);
            self.texel_views.push(vk::BufferView::null());
            let BufferKind::Image(desc) = b.kind else {
                continue;
            };
            let format = formats::vk_format(desc.format);
            if desc.dim == ImageDim::Buffer {
                let texel = desc.format.texel_bytes();
                let range = u64::from(desc.view_size()[0]) * texel;
                let info = vk::BufferViewCreateInfo::default()
                    .buffer(self.buffers[i].buffer)
                    .format(format)
                    .offset(desc.view_offset())
                    .range(range);
                // SAFETY: a buffer of this plan made with STORAGE_TEXEL_BUFFER usage; a
                // format with storage texel buffer support, an aligned offset and a range
                // inside the buffer (support::check; the plan's range lies in its buffer).
                self.texel_views[i] = unsafe { d.create_buffer_view(&info, None) }
                    .map_err(|e| internal("vkCreateBufferView", e))?;
                continue;
            }
            let (ty, view_ty, extent, layers) = formats::image_shape(desc.dim, desc.size);
            let info = vk::ImageCreateInfo::default()
                .image_type(ty)
                .format(format)
                .extent(extent)
                .mip_levels(1)
                .array_layers(layers)
                .samples(vk::SampleCountFlags::TYPE_1)
                .tiling(vk::ImageTiling::OPTIMAL)
                .usage(
                    vk::ImageUsageFlags::STORAGE
                        | vk::ImageUsageFlags::TRANSFER_SRC
                        | vk::ImageUsageFlags::TRANSFER_DST,
                )
                .sharing_mode(vk::SharingMode::EXCLUSIVE)
                .initial_layout(vk::ImageLayout::UNDEFINED);
            // SAFETY: a format with optimal-tiling storage support and a size within the
            // device's image limits (support::check).
            let image =
                unsafe { d.create_image(&info, None) }.map_err(|e| internal("vkCreateImage", e))?;
            // SAFETY: an image of this device.
            let req = unsafe { d.get_image_memory_requirements(image) };
            let mem = &self.dev.memory;
            let fits = |i: u32| req.memory_type_bits & (1 << i) != 0;
            let local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
            let index = (0..mem.memory_type_count)
                .find(|&i| fits(i) && mem.memory_types[i as usize].property_flags.contains(local))
                .or_else(|| (0..mem.memory_type_count).find(|&i| fits(i)));
            let alloc = index.map(|index| {
                vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(index)
            });
            // SAFETY: a memory type the image accepts, bound once at offset 0.
            let memory = match alloc.map(|a| unsafe { d.allocate_memory(&a, None) }) {
                Some(Ok(m)) => m,
                failed => {
                    // SAFETY: the image is unused.
                    unsafe { d.destroy_image(image, None) };
                    return Err(match failed {
                        Some(Err(e)) => internal("vkAllocateMemory (image)", e),
                        _ => internal(
                            "finding a memory type for the image",
                            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                        ),
                    });
                }
            };
            let mut img = Image {
                image,
                memory,
                view: vk::ImageView::null(),
                desc,
            };
            // SAFETY: fresh memory of a type the image accepts, large enough.
            if let Err(e) = unsafe { d.bind_image_memory(image, memory, 0) } {
                self.images[i] = Some(img);
                return Err(internal("vkBindImageMemory", e));
            }
            let info = vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(view_ty)
                .format(format)
                .subresource_range(color_range(layers));
            // SAFETY: a view of the whole image, of its own format and a matching type.
            let view = unsafe { d.create_image_view(&info, None) };
            if let Ok(v) = view {
                img.view = v;
            }
            self.images[i] = Some(img);
            view.map_err(|e| internal("vkCreateImageView", e))?;
        }
        Ok(())
    }

    /// Records the upload of every storage image's texels from its staging buffer, and the
    /// transition to GENERAL with the copy made visible to the shaders.
    fn record_uploads(&self, cmd: vk::CommandBuffer) {
        for (i, img) in self.images.iter().enumerate() {
            let Some(img) = img else { continue };
            let layers = formats::image_shape(img.desc.dim, img.desc.size).3;
            self.image_barrier(
                cmd,
                img.image,
                layers,
                (
                    vk::ImageLayout::UNDEFINED,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                ),
                (
                    vk::PipelineStageFlags::TOP_OF_PIPE,
                    vk::AccessFlags::empty(),
                ),
                (
                    vk::PipelineStageFlags::TRANSFER,
                    vk::AccessFlags::TRANSFER_WRITE,
                ),
            );
            let region = [copy_region(&img.desc)];
            // SAFETY: `cmd` is recording; the staging buffer holds the image's texels in
            // the tight layout the region describes; the image is in TRANSFER_DST.
            unsafe {
                self.dev.device.cmd_copy_buffer_to_image(
                    cmd,
                    self.buffers[i].buffer,
                    img.image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &region,
                )
            };
            self.image_barrier(
                cmd,
                img.image,
                layers,
                (
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    vk::ImageLayout::GENERAL,
                ),
                (
                    vk::PipelineStageFlags::TRANSFER,
                    vk::AccessFlags::TRANSFER_WRITE,
                ),
                shader_uses(),
            );
        }
    }

    /// Records the copy of every storage image back to its staging buffer, after every
    /// earlier write (the caller's observation barrier then makes it visible to the host).
    fn record_readbacks(&self, cmd: vk::CommandBuffer) {
        if self.images.iter().all(Option::is_none) {
            return;
        }
        barrier(
            &self.dev.device,
            cmd,
            (
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::AccessFlags::MEMORY_WRITE,
            ),
            (
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_READ,
            ),
        );
        for (i, img) in self.images.iter().enumerate() {
            let Some(img) = img else { continue };
            let region = [copy_region(&img.desc)];
            // SAFETY: `cmd` is recording; the image is in GENERAL (uploaded in the first
            // command buffer) and the staging buffer holds the whole level.
            unsafe {
                self.dev.device.cmd_copy_image_to_buffer(
                    cmd,
                    img.image,
                    vk::ImageLayout::GENERAL,
                    self.buffers[i].buffer,
                    &region,
                )
            };
        }
    }

    fn image_barrier(
        &self,
        cmd: vk::CommandBuffer,
        image: vk::Image,
        layers: u32,
        layouts: (vk::ImageLayout, vk::ImageLayout),
        src: (vk::PipelineStageFlags, vk::AccessFlags),
        dst: (vk::PipelineStageFlags, vk::AccessFlags),
    ) {
        let b = [vk::ImageMemoryBarrier::default()
            .old_layout(layouts.0)
            .new_layout(layouts.1)
            .src_access_mask(src.1)
            .dst_access_mask(dst.1)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image)
            .subresource_range(color_range(layers))];
        // SAFETY: a command buffer in the recording state; an image of this plan.
        unsafe {
            self.dev.device.cmd_pipeline_barrier(
                cmd,
                src.0,
                dst.0,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &b,
            )
        };
    }

    fn read(&self) -> Vec<Vec<u8>> {
        self.buffers
            .iter()
            .map(|b| {
                let mut out = vec![0u8; b.len];
                // SAFETY: the mapping holds at least `len` bytes; the device wrote them before
                // the fence the caller waited on, and the memory is host-coherent.
                unsafe { std::ptr::copy_nonoverlapping(b.ptr, out.as_mut_ptr(), b.len) };
                out
            })
            .collect()
    }

    /// The pipeline and its layout; Err(log) when the driver refused the module or pipeline.
    fn build(&mut self, plan: &ExecPlan, ready: &Ready) -> Result<Result<(), String>, Refusal> {
        let d = &self.dev.device;
        let program = &plan.programs[0];
        let info = vk::ShaderModuleCreateInfo::default().code(&ready.words);
        // SAFETY: the words are a module spirv-val accepted for the device's environment.
        self.module = match unsafe { d.create_shader_module(&info, None) } {
            Ok(m) => m,
            Err(e) => return Ok(Err(format!("vkCreateShaderModule: {e}"))),
        };
        let bindings: Vec<vk::DescriptorSetLayoutBinding> = ready
            .descriptors
            .iter()
            .map(|x| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(x.binding)
                    .descriptor_type(descriptor_type(x.kind))
                    .descriptor_count(x.buffers.len() as u32)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        // SAFETY: distinct bindings (support::check), a live device.
        self.set_layout = unsafe { d.create_descriptor_set_layout(&info, None) }
            .map_err(|e| internal("vkCreateDescriptorSetLayout", e))?;
        let layouts = [self.set_layout];
        let info = vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts);
        // SAFETY: as above.
        self.layout = unsafe { d.create_pipeline_layout(&info, None) }
            .map_err(|e| internal("vkCreatePipelineLayout", e))?;
        let entries: Vec<vk::SpecializationMapEntry> = program
            .specialization
            .iter()
            .enumerate()
            .map(|(i, (id, _))| vk::SpecializationMapEntry {
                constant_id: *id,
                offset: 4 * i as u32,
                size: 4,
            })
            .collect();
        let data: Vec<u8> = program
            .specialization
            .iter()
            .flat_map(|(_, v)| v.to_le_bytes())
            .collect();
        let spec = vk::SpecializationInfo::default()
            .map_entries(&entries)
            .data(&data);
        let entry = std::ffi::CString::new(program.entry.as_str())
            .map_err(|_| Refusal::Internal("entry point name with a NUL".into()))?;
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(self.module)
            .name(&entry);
        if !entries.is_empty() {
            stage = stage.specialization_info(&spec);
        }
        // GL defines out-of-bounds image accesses (ARB_shader_image_load_store section
        // 3.9.X: loads return zero, stores and atomics do nothing); Vulkan only with
        // robustness. Storage images: robustImageAccess, enabled on the device (it changes
        // nothing else). Buffer images (texel buffers): robustBufferAccess2, asked for this
        // pipeline alone where the device has pipeline robustness (it also covers the
        // pipeline's storage buffers), else the worker runs the plan on its robust device.
        let texels = ready.has(ResourceKind::StorageTexelBuffer)
            && !self.dev.robust
            && self.dev.info.has_feature("pipelineRobustness");
        let mut robust = vk::PipelineRobustnessCreateInfoEXT::default()
            .storage_buffers(vk::PipelineRobustnessBufferBehaviorEXT::ROBUST_BUFFER_ACCESS_2)
            .uniform_buffers(vk::PipelineRobustnessBufferBehaviorEXT::DEVICE_DEFAULT)
            .vertex_inputs(vk::PipelineRobustnessBufferBehaviorEXT::DEVICE_DEFAULT)
            .images(vk::PipelineRobustnessImageBehaviorEXT::DEVICE_DEFAULT);
        let mut info = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(self.layout);
        if texels {
            info = info.push_next(&mut robust);
        }
        let info = [info];
        // SAFETY: the module, layout and entry point are live and match (support::check).
        match unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &info, None) } {
            Ok(p) => {
                self.pipeline = p[0];
                Ok(Ok(()))
            }
            Err((_, e)) => Ok(Err(format!("vkCreateComputePipelines: {e}"))),
        }
    }

    fn descriptors(&mut self, ready: &Ready) -> Result<vk::DescriptorSet, Refusal> {
        let d = &self.dev.device;
        let count = |k| {
            ready
                .descriptors
                .iter()
                .filter(|x| x.kind == k)
                .map(|x| x.buffers.len() as u32)
                .sum::<u32>()
        };
        let sizes: Vec<vk::DescriptorPoolSize> = [
            ResourceKind::StorageBuffer,
            ResourceKind::UniformBuffer,
            ResourceKind::StorageImage,
            ResourceKind::StorageTexelBuffer,
        ]
        .into_iter()
        .filter(|k| count(*k) > 0)
        .map(|k| vk::DescriptorPoolSize {
            ty: descriptor_type(k),
            descriptor_count: count(k),
        })
        .collect();
        let info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(1)
            .pool_sizes(&sizes);
        // SAFETY: a live device.
        self.pool = unsafe { d.create_descriptor_pool(&info, None) }
            .map_err(|e| internal("vkCreateDescriptorPool", e))?;
        let layouts = [self.set_layout];
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(self.pool)
            .set_layouts(&layouts);
        // SAFETY: a pool sized for the layout.
        let set = unsafe { d.allocate_descriptor_sets(&info) }
            .map_err(|e| internal("vkAllocateDescriptorSets", e))?[0];
        // One write per binding, its array elements in order (element k: the plan buffer
        // of GL binding `gl_binding + k`, support::check).
        let buffer_infos: Vec<Vec<vk::DescriptorBufferInfo>> = ready
            .descriptors
            .iter()
            .map(|x| {
                x.buffers
                    .iter()
                    .map(|&b| vk::DescriptorBufferInfo {
                        buffer: self.buffers[b].buffer,
                        offset: 0,
                        range: WHOLE,
                    })
                    .collect()
            })
            .collect();
        let image_infos: Vec<Vec<vk::DescriptorImageInfo>> = ready
            .descriptors
            .iter()
            .map(|x| {
                x.buffers
                    .iter()
                    .filter_map(|&b| self.images[b].as_ref())
                    .map(|img| vk::DescriptorImageInfo {
                        sampler: vk::Sampler::null(),
                        image_view: img.view,
                        image_layout: vk::ImageLayout::GENERAL,
                    })
                    .collect()
            })
            .collect();
        let texel_views: Vec<Vec<vk::BufferView>> = ready
            .descriptors
            .iter()
            .map(|x| x.buffers.iter().map(|&b| self.texel_views[b]).collect())
            .collect();
        let writes: Vec<vk::WriteDescriptorSet> = ready
            .descriptors
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let w = vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(x.binding)
                    .dst_array_element(0)
                    .descriptor_type(descriptor_type(x.kind));
                match x.kind {
                    ResourceKind::StorageBuffer | ResourceKind::UniformBuffer => {
                        w.buffer_info(&buffer_infos[i])
                    }
                    ResourceKind::StorageImage => w.image_info(&image_infos[i]),
                    ResourceKind::StorageTexelBuffer => w.texel_buffer_view(&texel_views[i]),
                }
            })
            .collect();
        // SAFETY: writes of live buffers into a live set.
        unsafe { d.update_descriptor_sets(&writes, &[]) };
        Ok(set)
    }
}

fn descriptor_type(k: ResourceKind) -> vk::DescriptorType {
    match k {
        ResourceKind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
        ResourceKind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
        ResourceKind::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
        ResourceKind::StorageTexelBuffer => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
    }
}

/// Level 0, every layer, of a color image.
fn color_range(layers: u32) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: layers,
    }
}

/// The whole of level 0 against tightly packed texels from offset 0: x fastest, then y,
/// then z or the layer (the plan's layout; bufferRowLength and bufferImageHeight 0).
fn copy_region(desc: &ImageDesc) -> vk::BufferImageCopy {
    let (_, _, extent, layers) = formats::image_shape(desc.dim, desc.size);
    vk::BufferImageCopy {
        buffer_offset: 0,
        buffer_row_length: 0,
        buffer_image_height: 0,
        image_subresource: vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: layers,
        },
        image_offset: vk::Offset3D::default(),
        image_extent: extent,
    }
}

/// The stages and accesses a glMemoryBarrier bit makes later commands see shader writes in.
fn barrier_dst(bit: BarrierBit) -> (vk::PipelineStageFlags, vk::AccessFlags) {
    let shader = (
        vk::PipelineStageFlags::COMPUTE_SHADER,
        vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
    );
    match bit {
        BarrierBit::ShaderStorage | BarrierBit::AtomicCounter | BarrierBit::ShaderImageAccess => {
            shader
        }
        BarrierBit::Uniform => (
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::AccessFlags::UNIFORM_READ,
        ),
        BarrierBit::Command => (
            vk::PipelineStageFlags::DRAW_INDIRECT,
            vk::AccessFlags::INDIRECT_COMMAND_READ,
        ),
        BarrierBit::BufferUpdate => (
            vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::HOST,
            vk::AccessFlags::TRANSFER_READ
                | vk::AccessFlags::TRANSFER_WRITE
                | vk::AccessFlags::HOST_READ,
        ),
        BarrierBit::All => {
            let mut s = vk::PipelineStageFlags::empty();
            let mut a = vk::AccessFlags::empty();
            for b in [
                BarrierBit::ShaderStorage,
                BarrierBit::Uniform,
                BarrierBit::Command,
                BarrierBit::BufferUpdate,
            ] {
                let (bs, ba) = barrier_dst(b);
                s |= bs;
                a |= ba;
            }
            (s, a)
        }
    }
}

/// Records one global memory barrier.
fn barrier(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    src: (vk::PipelineStageFlags, vk::AccessFlags),
    dst: (vk::PipelineStageFlags, vk::AccessFlags),
) {
    let mb = [vk::MemoryBarrier::default()
        .src_access_mask(src.1)
        .dst_access_mask(dst.1)];
    // SAFETY: a command buffer in the recording state.
    unsafe {
        d.cmd_pipeline_barrier(
            cmd,
            src.0,
            dst.0,
            vk::DependencyFlags::empty(),
            &mb,
            &[],
            &[],
        )
    };
}

/// Shader and indirect stages, which a transfer must wait for (execution only) and make its
/// writes visible to.
fn shader_uses() -> (vk::PipelineStageFlags, vk::AccessFlags) {
    (
        vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::DRAW_INDIRECT,
        vk::AccessFlags::SHADER_READ
            | vk::AccessFlags::SHADER_WRITE
            | vk::AccessFlags::UNIFORM_READ
            | vk::AccessFlags::INDIRECT_COMMAND_READ,
    )
}

/// Runs `plan` on `dev` (already checked: `ready`).
pub(crate) fn run_plan(dev: &Device, plan: &ExecPlan, ready: &Ready) -> Result<Outcome, Refusal> {
    let d = &dev.device;
    let mut o = Objects {
        dev,
        buffers: Vec::new(),
        images: Vec::new(),
        texel_views: Vec::new(),
        module: vk::ShaderModule::null(),
        set_layout: vk::DescriptorSetLayout::null(),
        layout: vk::PipelineLayout::null(),
        pipeline: vk::Pipeline::null(),
        pool: vk::DescriptorPool::null(),
        commands: vk::CommandPool::null(),
        fence: vk::Fence::null(),
    };
    breadcrumb::set("creating the buffers (vkCreateBuffer, vkAllocateMemory)");
    o.create_buffers(plan)?;
    breadcrumb::set("creating the images (vkCreateImage, vkCreateBufferView)");
    o.create_images(plan)?;
    let t = Instant::now();
    breadcrumb::set("building the pipeline (vkCreateShaderModule, vkCreateComputePipelines)");
    let built = o.build(plan, ready)?;
    let mut timings = Timings {
        build: micros(t),
        ..Timings::default()
    };
    if let Err(log) = built {
        return Ok(Outcome {
            build: BuildOutcome {
                failed_at: Some(BuildStage::Link),
                log,
            },
            buffers: o.read(),
            timings_us: timings,
            ..Outcome::default()
        });
    }
    let set = o.descriptors(ready)?;
    let info = vk::CommandPoolCreateInfo::default().queue_family_index(dev.queue_family);
    // SAFETY: a family of the device.
    o.commands = unsafe { d.create_command_pool(&info, None) }
        .map_err(|e| internal("vkCreateCommandPool", e))?;
    // SAFETY: a live device.
    o.fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }
        .map_err(|e| internal("vkCreateFence", e))?;
    let t = Instant::now();
    let mut steps = Vec::new();
    let mut snapshots = Vec::new();
    let mut cmd = begin(&o, set)?;
    o.record_uploads(cmd);
    let mut first = 1;
    for (i, step) in plan.steps.iter().enumerate() {
        // Every unsafe block of this match: `cmd` is recording, with the pipeline and set
        // bound; the buffers and ranges were checked by support::check.
        match step {
            // SAFETY: see above.
            Step::Dispatch { groups } => unsafe {
                d.cmd_dispatch(cmd, groups[0], groups[1], groups[2])
            },
            Step::DispatchIndirect {
                buffer: Some(b),
                offset,
            } => {
                // SAFETY: see above (offset checked against the buffer's size).
                unsafe { d.cmd_dispatch_indirect(cmd, o.buffers[*b].buffer, *offset as u64) }
            }
            Step::MemoryBarrier { bits } => {
                let mut dst = (vk::PipelineStageFlags::empty(), vk::AccessFlags::empty());
                for b in bits {
                    let (s, a) = barrier_dst(*b);
                    dst.0 |= s;
                    dst.1 |= a;
                }
                if !dst.0.is_empty() {
                    let src = (
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        vk::AccessFlags::SHADER_WRITE,
                    );
                    barrier(d, cmd, src, dst);
                }
            }
            Step::WriteBuffer {
                buffer,
                offset,
                bytes,
            } => {
                let before = (shader_uses().0, vk::AccessFlags::empty());
                barrier(
                    d,
                    cmd,
                    before,
                    (vk::PipelineStageFlags::TRANSFER, vk::AccessFlags::empty()),
                );
                for (k, chunk) in bytes.chunks(65536).enumerate() {
                    let at = offset + 65536 * k as u64;
                    // SAFETY: see above (range and 4-byte units checked).
                    unsafe { d.cmd_update_buffer(cmd, o.buffers[*buffer].buffer, at, chunk) };
                }
                let written = (
                    vk::PipelineStageFlags::TRANSFER,
                    vk::AccessFlags::TRANSFER_WRITE,
                );
                barrier(d, cmd, written, shader_uses());
            }
            Step::ClearBuffer { buffer } => {
                let before = (shader_uses().0, vk::AccessFlags::empty());
                barrier(
                    d,
                    cmd,
                    before,
                    (vk::PipelineStageFlags::TRANSFER, vk::AccessFlags::empty()),
                );
                // SAFETY: see above.
                unsafe { d.cmd_fill_buffer(cmd, o.buffers[*buffer].buffer, 0, WHOLE, 0) };
                let written = (
                    vk::PipelineStageFlags::TRANSFER,
                    vk::AccessFlags::TRANSFER_WRITE,
                );
                barrier(d, cmd, written, shader_uses());
            }
            Step::Snapshot => {
                submit(&o, cmd, first, i + 1)?;
                snapshots.push(o.read());
                first = i + 2;
                cmd = begin(&o, set)?;
            }
            other => {
                return Err(Refusal::Internal(format!(
                    "step {} ({other:?}) reached the Vulkan runner",
                    i + 1
                )))
            }
        }
        steps.push(StepOutcome {
            // Vulkan reports no errors per command: the GL error check is not applicable.
            error: None,
            values: Vec::new(),
            applicable: true,
        });
    }
    submit(&o, cmd, first, plan.steps.len())?;
    timings.dispatch = micros(t);
    let t = Instant::now();
    breadcrumb::set("reading the buffers back (mapped memory)");
    let buffers = o.read();
    timings.readback = micros(t);
    Ok(Outcome {
        build: BuildOutcome::default(),
        steps,
        buffers,
        snapshots,
        flags: Vec::new(),
        notes: Vec::new(),
        timings_us: timings,
        other_schedules: Vec::new(),
    })
}

/// A fresh command buffer, recording, with the pipeline and the descriptor set bound.
fn begin(o: &Objects, set: vk::DescriptorSet) -> Result<vk::CommandBuffer, Refusal> {
    let d = &o.dev.device;
    let info = vk::CommandBufferAllocateInfo::default()
        .command_pool(o.commands)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: the plan's pool, pipeline, layout and set are live.
    unsafe {
        let cmd = d
            .allocate_command_buffers(&info)
            .map_err(|e| internal("vkAllocateCommandBuffers", e))?[0];
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        d.begin_command_buffer(cmd, &begin)
            .map_err(|e| internal("vkBeginCommandBuffer", e))?;
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, o.pipeline);
        d.cmd_bind_descriptor_sets(
            cmd,
            vk::PipelineBindPoint::COMPUTE,
            o.layout,
            0,
            &[set],
            &[],
        );
        Ok(cmd)
    }
}

/// Ends `cmd` with the images' copies to their staging buffers and the observation barrier
/// (all writes → host reads), submits it and waits.
fn submit(o: &Objects, cmd: vk::CommandBuffer, from: usize, to: usize) -> Result<(), Refusal> {
    let d = &o.dev.device;
    o.record_readbacks(cmd);
    barrier(
        d,
        cmd,
        (
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::AccessFlags::MEMORY_WRITE,
        ),
        (vk::PipelineStageFlags::HOST, vk::AccessFlags::HOST_READ),
    );
    breadcrumb::set(&format!(
        "steps {from}..{to}: vkQueueSubmit and vkWaitForFences"
    ));
    // SAFETY: `cmd` is recording; the fence is unsignalled (reset after each wait).
    unsafe {
        d.end_command_buffer(cmd)
            .map_err(|e| internal("vkEndCommandBuffer", e))?;
        let cmds = [cmd];
        let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
        if let Err(e) = d.queue_submit(o.dev.queue, &submit, o.fence) {
            fatal("vkQueueSubmit", e);
        }
        if let Err(e) = d.wait_for_fences(&[o.fence], true, u64::MAX) {
            fatal("vkWaitForFences", e);
        }
        d.reset_fences(&[o.fence])
            .map_err(|e| internal("vkResetFences", e))?;
    }
    Ok(())
}
