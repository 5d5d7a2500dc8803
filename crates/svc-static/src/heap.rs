//! The script's heap: QuickJS's allocations through libc's `malloc`, capped
//! at the run's memory limit.
//!
//! QuickJS's own cap (`JS_SetMemoryLimit`) refuses the allocation that
//! crosses it and then builds the "out of memory" error within the same cap;
//! when that does not fit either (the heap stopped a few bytes short of the
//! cap), QuickJS throws `null`, so a run that ran out of memory failed with
//! "the script threw: null" or "out of memory" depending on where its heap
//! happened to stop. Here the first refusal opens a reserve beyond the cap
//! for what comes next (the error, its message and stack): a run that
//! exhausts its memory says so.

use rquickjs::allocator::Allocator;

/// Room beyond the cap once it was hit.
const RESERVE: usize = 1024 * 1024;

pub struct CappedHeap {
    /// Bytes allocated (as `malloc_usable_size` counts them).
    used: usize,
    cap: usize,
    /// Whether an allocation was refused (the reserve is open).
    refused: bool,
}

impl CappedHeap {
    pub fn new(cap: usize) -> CappedHeap {
        CappedHeap { used: 0, cap, refused: false }
    }

    /// Whether `more` bytes fit; the first refusal opens the reserve.
    fn admit(&mut self, more: usize) -> bool {
        let limit = if self.refused { self.cap.saturating_add(RESERVE) } else { self.cap };
        if self.used.saturating_add(more) <= limit {
            return true;
        }
        self.refused = true;
        false
    }
}

fn usable(ptr: *mut u8) -> usize {
    // SAFETY: `ptr` came from libc's allocator (below) and is live.
    unsafe { libc::malloc_usable_size(ptr.cast()) }
}

// SAFETY: every pointer handed out is libc's `malloc`/`calloc`/`realloc`'s
// (aligned for any type, at least `size` bytes), freed and measured by libc.
unsafe impl Allocator for CappedHeap {
    fn alloc(&mut self, size: usize) -> *mut u8 {
        if !self.admit(size) {
            return std::ptr::null_mut();
        }
        // SAFETY: plain malloc; a null answer is passed on.
        let ptr = unsafe { libc::malloc(size.max(1)) }.cast::<u8>();
        if !ptr.is_null() {
            self.used += usable(ptr);
        }
        ptr
    }

    fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
        let Some(total) = count.checked_mul(size) else { return std::ptr::null_mut() };
        if !self.admit(total) {
            return std::ptr::null_mut();
        }
        // SAFETY: plain calloc; a null answer is passed on.
        let ptr = unsafe { libc::calloc(count.max(1), size.max(1)) }.cast::<u8>();
        if !ptr.is_null() {
            self.used += usable(ptr);
        }
        ptr
    }

    unsafe fn dealloc(&mut self, ptr: *mut u8) {
        if ptr.is_null() {
            return;
        }
        self.used = self.used.saturating_sub(usable(ptr));
        // SAFETY: the caller hands back a pointer this allocator gave out.
        unsafe { libc::free(ptr.cast()) };
    }

    unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
        if ptr.is_null() {
            return self.alloc(new_size);
        }
        let old = usable(ptr);
        if new_size > old && !self.admit(new_size - old) {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller hands over a live pointer of this allocator;
        // on failure it stays valid and counted.
        let moved = unsafe { libc::realloc(ptr.cast(), new_size.max(1)) }.cast::<u8>();
        if !moved.is_null() {
            self.used = self.used.saturating_sub(old) + usable(moved);
        }
        moved
    }

    unsafe fn usable_size(ptr: *mut u8) -> usize {
        usable(ptr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_holds_and_the_first_refusal_opens_the_reserve() {
        let mut heap = CappedHeap::new(64 * 1024);
        let a = heap.alloc(48 * 1024);
        assert!(!a.is_null());
        assert!(heap.alloc(32 * 1024).is_null(), "over the cap");
        let b = heap.alloc(32 * 1024);
        assert!(!b.is_null(), "the reserve is open after a refusal");
        assert!(heap.alloc(2 * RESERVE).is_null(), "the reserve is bounded");
        // SAFETY: pointers of this allocator.
        unsafe {
            heap.dealloc(a);
            heap.dealloc(b);
        }
        assert_eq!(heap.used, 0);
    }
}
