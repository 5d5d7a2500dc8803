//! The script's heap: one region of memory at a fixed address, all of
//! QuickJS's allocations for one realm, capped at the run's memory limit.
//!
//! **Why one region.** A run must start from a realm nothing of a previous
//! run is visible in. Building one (runtime, context, svc's prelude) and
//! freeing it again was most of a run's CPU. Here the realm is built once per
//! process ([`crate::realm`]) into this region; everything QuickJS holds is
//! inside it (the allocator's own book keeping too, at its start), and it is
//! all in one prefix of the region, so a copy of that prefix taken after the
//! build ([`Heap::snapshot`]) is the whole realm. Before each run the copy
//! is written back ([`Heap::restore`]): every byte a previous run changed
//! in the realm is as it was, and what the run added beyond the prefix is
//! unreachable (the free lists and the end of the used prefix are restored
//! with the rest).
//!
//! **The allocator.** Blocks of size classes (16-byte steps up to 512 bytes,
//! then eight classes per power of two), each with a 16-byte header naming
//! its class; a freed block goes on its class's free list and serves the
//! next allocation of that class; new blocks come from the end of the used
//! prefix. Blocks are not merged or split: a script whose live memory stays
//! under the cap can still find the region full when it frees large blocks
//! and then asks for larger ones (the region is [`REGION`] bytes, four times
//! the default cap); it fails as when over the cap.
//!
//! **The cap.** QuickJS's own cap (`JS_SetMemoryLimit`) refuses the
//! allocation that crosses it and then builds the "out of memory" error
//! within the same cap; when that does not fit either (the heap stopped a
//! few bytes short of the cap), QuickJS throws `null`, so a run that ran
//! out of memory failed with "the script threw: null" or "out of memory"
//! depending on where its heap happened to stop. Here the first refusal opens
//! a reserve beyond the cap for what comes next (the error, its message and
//! stack): a run that exhausts its memory says so.

use std::ptr::NonNull;

use rquickjs::allocator::Allocator;

/// Room beyond the cap once it was hit.
const RESERVE: usize = 1024 * 1024;

/// The region's size (address space reserved, not memory: pages are
/// touched as the realm and its runs use them).
pub const REGION: usize = 1024 * 1024 * 1024;

/// Each block's header, before the address handed out (keeps 16-byte alignment).
const HEADER: usize = 16;

/// Size classes: 32 of 16-byte steps up to 512, then 8 per power of two up to 2^40.
const SMALL: usize = 32;
const CLASSES: usize = SMALL + (40 - 9) * 8;

/// Above this many bytes used past the realm's prefix, a restore gives the
/// pages back to the system (a run that used much memory does not keep it
/// resident for the process's later runs).
const KEEP_RESIDENT: usize = 8 * 1024 * 1024;

/// The class of a `size`-byte block, or `None` beyond the largest.
fn class_of(size: usize) -> Option<usize> {
    let size = size.max(1);
    if size <= 512 {
        return Some(size.div_ceil(16) - 1);
    }
    let exponent = (usize::BITS - 1 - (size - 1).leading_zeros()) as usize;
    let step = 1usize << (exponent - 3);
    let k = (size - (1 << exponent)).div_ceil(step) - 1;
    let class = SMALL + (exponent - 9) * 8 + k;
    (class < CLASSES).then_some(class)
}

/// The bytes a block of `class` holds.
fn class_size(class: usize) -> usize {
    if class < SMALL {
        return (class + 1) * 16;
    }
    let exponent = 9 + (class - SMALL) / 8;
    let k = (class - SMALL) % 8;
    (1 << exponent) + (k + 1) * (1 << (exponent - 3))
}

/// The allocator's book keeping, at the region's start (so in the prefix).
#[repr(C)]
struct State {
    /// Offset of the end of the used prefix.
    end: usize,
    /// Bytes in live blocks (their classes' sizes): what the cap counts.
    used: usize,
    cap: usize,
    /// Whether an allocation was refused (the reserve is open).
    refused: bool,
    /// Offset of each class's first free block's header (0: none).
    free: [usize; CLASSES],
}

/// Where the first block starts.
const FIRST: usize = std::mem::size_of::<State>().next_multiple_of(HEADER);

/// The region, owned: unmapped on drop.
pub struct Heap {
    base: NonNull<u8>,
}

/// A copy of a [`Heap`]'s used prefix ([`Heap::snapshot`]).
pub struct Image(Vec<u8>);

impl Heap {
    /// Reserves the region; its cap is `cap` bytes until [`Heap::set_cap`].
    pub fn new(cap: usize) -> std::io::Result<Heap> {
        // SAFETY: an anonymous private mapping of our own; nothing else
        // refers to the addresses it answers.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                REGION,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let base = NonNull::new(base.cast::<u8>()).ok_or_else(|| std::io::Error::other("mmap answered null"))?;
        // SAFETY: the mapping is zeroed, at least a page long and aligned for
        // `State`; nothing else writes there yet.
        unsafe {
            base.as_ptr().cast::<State>().write(State { end: FIRST, used: 0, cap, refused: false, free: [0; CLASSES] })
        };
        Ok(Heap { base })
    }

    /// The allocator QuickJS is given: a handle on this region (which must
    /// outlive the runtime using it).
    pub fn allocator(&self) -> HeapAllocator {
        HeapAllocator { base: self.base }
    }

    /// The book keeping (one thread uses a heap; QuickJS is not inside an
    /// allocation while these read or write it).
    fn state(&self) -> *mut State {
        self.base.as_ptr().cast::<State>()
    }

    /// Bytes in live blocks.
    #[cfg(test)]
    pub fn used(&self) -> usize {
        // SAFETY: the region starts with the `State` written in `new`.
        unsafe { (*self.state()).used }
    }

    /// The cap from now on, with the reserve closed.
    pub fn set_cap(&self, cap: usize) {
        // SAFETY: as `used`; no other reference to it is live.
        let state = unsafe { &mut *self.state() };
        state.cap = cap;
        state.refused = false;
    }

    /// Copies the used prefix aside: what [`Heap::restore`] writes back.
    pub fn snapshot(&self) -> Image {
        // SAFETY: as `used`.
        let end = unsafe { (*self.state()).end };
        // SAFETY: `[base, base + end)` is inside the mapping and initialized.
        Image(unsafe { std::slice::from_raw_parts(self.base.as_ptr(), end) }.to_vec())
    }

    /// Writes `image` back: the region as it was when it was taken.
    ///
    /// # Safety
    /// `image` is of this heap, and nothing may use a pointer into the
    /// region obtained after it was taken (every value of the run before
    /// must be gone or forgotten).
    pub unsafe fn restore(&self, image: &Image) {
        // SAFETY: as `used`.
        let end = unsafe { (*self.state()).end };
        let len = image.0.len();
        // SAFETY: the image is a prefix of this same mapping.
        unsafe { std::ptr::copy_nonoverlapping(image.0.as_ptr(), self.base.as_ptr(), len) };
        if end > len + KEEP_RESIDENT {
            let from = len.next_multiple_of(4096);
            // SAFETY: pages of our own mapping, past the image; nothing in the
            // restored realm refers to them. They read as zeroes when touched again.
            unsafe {
                libc::madvise(
                    self.base.as_ptr().add(from).cast(),
                    end.next_multiple_of(4096) - from,
                    libc::MADV_DONTNEED,
                )
            };
        }
    }
}

impl Drop for Heap {
    fn drop(&mut self) {
        // SAFETY: the mapping `new` made; the runtime using it is gone.
        unsafe { libc::munmap(self.base.as_ptr().cast(), REGION) };
    }
}

/// QuickJS's allocator over a [`Heap`]'s region.
pub struct HeapAllocator {
    base: NonNull<u8>,
}

impl HeapAllocator {
    fn state(&mut self) -> &mut State {
        // SAFETY: as `Heap::state`.
        unsafe { &mut *self.base.as_ptr().cast::<State>() }
    }

    /// The header of the block at `ptr`.
    fn header(ptr: *mut u8) -> *mut usize {
        // SAFETY (for callers): `ptr` is a block's address, HEADER bytes past its header.
        ptr.wrapping_sub(HEADER).cast::<usize>()
    }

    fn block(&mut self, size: usize) -> *mut u8 {
        let Some(class) = class_of(size) else { return std::ptr::null_mut() };
        let bytes = class_size(class);
        let base = self.base.as_ptr();
        let state = self.state();
        let limit = if state.refused { state.cap.saturating_add(RESERVE) } else { state.cap };
        if state.used.saturating_add(bytes) > limit {
            state.refused = true;
            return std::ptr::null_mut();
        }
        let at = state.free[class];
        let header = if at != 0 {
            // SAFETY: a free block's payload starts with the next free header's offset.
            state.free[class] = unsafe { base.add(at + HEADER).cast::<usize>().read() };
            at
        } else {
            let at = state.end;
            if at + HEADER + bytes > REGION {
                state.refused = true;
                return std::ptr::null_mut();
            }
            state.end = at + HEADER + bytes;
            at
        };
        state.used += bytes;
        // SAFETY: `header` is a block's start inside the region.
        unsafe {
            base.add(header).cast::<usize>().write(class);
            base.add(header + HEADER)
        }
    }
}

// SAFETY: every pointer handed out is 16-byte aligned (the region is
// page-aligned, headers and classes are multiples of 16), at least `size`
// bytes long, and inside the region, which outlives the runtime.
unsafe impl Allocator for HeapAllocator {
    fn alloc(&mut self, size: usize) -> *mut u8 {
        self.block(size)
    }

    fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
        let Some(total) = count.checked_mul(size) else { return std::ptr::null_mut() };
        let ptr = self.block(total);
        if !ptr.is_null() {
            // SAFETY: a block of at least `total` bytes (reused blocks hold old bytes).
            unsafe { std::ptr::write_bytes(ptr, 0, total) };
        }
        ptr
    }

    unsafe fn dealloc(&mut self, ptr: *mut u8) {
        if ptr.is_null() {
            return;
        }
        let base = self.base.as_ptr();
        let header = Self::header(ptr);
        // SAFETY: `ptr` is a live block of this heap: its header names its class.
        let class = unsafe { header.read() };
        let offset = header as usize - base as usize;
        let state = self.state();
        state.used = state.used.saturating_sub(class_size(class));
        // SAFETY: the block's payload (at least 16 bytes) holds the list's link.
        unsafe { ptr.cast::<usize>().write(state.free[class]) };
        state.free[class] = offset;
    }

    unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
        if ptr.is_null() {
            return self.alloc(new_size);
        }
        // SAFETY: a live block of this heap.
        let class = unsafe { Self::header(ptr).read() };
        let old = class_size(class);
        if new_size <= old {
            return ptr;
        }
        let moved = self.block(new_size);
        if !moved.is_null() {
            // SAFETY: both are blocks of this heap, `old` bytes fit in each,
            // and they do not overlap (`ptr` is live, not on a free list).
            unsafe {
                std::ptr::copy_nonoverlapping(ptr, moved, old);
                self.dealloc(ptr);
            }
        }
        moved
    }

    unsafe fn usable_size(ptr: *mut u8) -> usize {
        // SAFETY: a live block of some heap: its header names its class.
        class_size(unsafe { Self::header(ptr).read() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_hold_their_sizes_and_waste_at_most_an_eighth_above_512() {
        for size in (1..5000).chain([65_536, 65_537, 1 << 30, (1 << 30) + 1]) {
            let class = class_of(size).unwrap();
            let bytes = class_size(class);
            assert!(bytes >= size, "{size} in class {class} of {bytes}");
            assert!(bytes.is_multiple_of(16));
            if class > 0 {
                assert!(class_size(class - 1) < size, "{size}: a smaller class fits");
            }
            if size > 512 {
                assert!(bytes - size <= size / 8 + 1, "{size}: {bytes}");
            }
        }
        assert_eq!(class_of(1 << 41), None);
    }

    #[test]
    fn the_cap_holds_and_the_first_refusal_opens_the_reserve() {
        let heap = Heap::new(64 * 1024).unwrap();
        let mut a = heap.allocator();
        let first = a.alloc(48 * 1024);
        assert!(!first.is_null());
        assert!(a.alloc(32 * 1024).is_null(), "over the cap");
        let second = a.alloc(32 * 1024);
        assert!(!second.is_null(), "the reserve is open after a refusal");
        assert!(a.alloc(2 * RESERVE).is_null(), "the reserve is bounded");
        // SAFETY: blocks of this heap.
        unsafe {
            a.dealloc(first);
            a.dealloc(second);
        }
        assert_eq!(heap.used(), 0);
    }

    #[test]
    fn freed_blocks_serve_their_class_and_calloc_zeroes_them() {
        let heap = Heap::new(1 << 20).unwrap();
        let mut a = heap.allocator();
        let p = a.alloc(100);
        // SAFETY: a block of at least 100 bytes, then handed back and taken again.
        unsafe {
            std::ptr::write_bytes(p, 0xAB, 100);
            a.dealloc(p);
            let q = a.calloc(10, 10);
            assert_eq!(q, p, "the freed block serves its class");
            assert!(std::slice::from_raw_parts(q, 100).iter().all(|b| *b == 0));
            let r = a.realloc(q, 50);
            assert_eq!(r, q, "shrinking keeps the block");
            let s = a.realloc(r, 1000);
            assert_ne!(s, r);
            assert_eq!(HeapAllocator::usable_size(s), 1024);
            assert_eq!(heap.used(), 1024);
        }
    }

    #[test]
    fn a_restore_brings_back_the_prefix_and_forgets_what_came_after() {
        let heap = Heap::new(1 << 20).unwrap();
        let mut a = heap.allocator();
        let kept = a.alloc(64);
        // SAFETY: blocks of this heap, used while live.
        unsafe { std::ptr::write_bytes(kept, 1, 64) };
        let image = heap.snapshot();
        let used = heap.used();
        // SAFETY: as above; after the restore only `kept` (of the snapshot) is used.
        unsafe {
            std::ptr::write_bytes(kept, 2, 64);
            let later = a.alloc(64);
            a.dealloc(kept);
            assert!(!later.is_null());
            heap.restore(&image);
            assert!(std::slice::from_raw_parts(kept, 64).iter().all(|b| *b == 1));
            assert_eq!(heap.used(), used);
            assert_eq!(a.alloc(64), later, "the block after the prefix is handed out again");
        }
    }
}
