; Three crates, one stacked on another; the stack must be inverted elsewhere.
(define (problem depot-style-2)
  (:domain depot-style)
  (:objects yard - depot
            shop - distributor
            truck0 - truck
            pallet0 pallet1 - pallet
            box0 box1 box2 - crate
            hoist0 hoist1 - hoist)
  (:init (at pallet0 yard) (at pallet1 shop) (clear pallet1)
         (at truck0 yard)
         (at hoist0 yard) (available hoist0) (at hoist1 shop) (available hoist1)
         (at box0 yard) (on box0 pallet0) (at box1 yard) (on box1 box0) (at box2 yard) (on box2 box1)
         (clear box2))
  (:goal (and (on box1 pallet1) (on box0 box1))))
