export function App() {
  return (
    <main>
      <h1>Vessel</h1>
      <p>The dashboard is loading its pages.</p>
    </main>
  );
}
